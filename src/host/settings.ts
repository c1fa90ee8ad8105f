import * as vscode from 'vscode';
import { readSetting, SETTINGS_SECTION, type SettingName, type SettingValue } from '../core/settings';

/** A `lifeThread.*` setting as src/core/settings.ts reads it: typed, defaulted and kept in range. */
export function setting<K extends SettingName>(name: K): SettingValue<K> {
  return readSetting(name, vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown>(name));
}

/**
 * This window's identity for claims and watched jobs. `env.sessionId` is not unique under code-server
 * (every window reports the same placeholder), so each activation makes its own.
 */
export const WINDOW_ID = `${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
