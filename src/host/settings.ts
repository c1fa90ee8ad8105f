import * as vscode from 'vscode';

/** Typed reads of the `lifeThread.*` settings of design §8. */
export function setting<T>(key: string, fallback: T): T {
  return vscode.workspace.getConfiguration('lifeThread').get<T>(key, fallback);
}

/** The owner's zone: the setting, else the extension host's zone. Validated where it is used. */
export function configuredZone(): string {
  const tz = setting('timeZone', '').trim();
  return tz || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * This window's identity for claims and watched jobs. `env.sessionId` is not unique under code-server
 * (every window reports the same placeholder), so each activation makes its own.
 */
export const WINDOW_ID = `${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
