/**
 * Every `lifeThread.*` setting in one map: its name, default and the reader that turns what the user
 * wrote into a value the code can use. A value of the wrong type reads as the default; a number out of
 * its range reads as the nearest bound (VS Code only warns about such values, it still hands them
 * over). test/unit/settings.test.ts checks this map against package.json's `contributes.configuration`.
 */
import { MAX_WAKES_PER_HOUR } from './wake/contract';
import { WAKE_TARGETS } from './wake/sender';

interface Spec<T> {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly default: T;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
  read(raw: unknown): T;
}

function text(def: string): Spec<string> {
  return { type: 'string', default: def, read: (raw) => (typeof raw === 'string' ? raw : def) };
}

function choice<const C extends readonly string[]>(def: C[number], options: C): Spec<C[number]> {
  return { type: 'string', default: def, enum: options, read: (raw) => (typeof raw === 'string' && options.includes(raw) ? raw : def) };
}

function flag(def: boolean): Spec<boolean> {
  return { type: 'boolean', default: def, read: (raw) => (typeof raw === 'boolean' ? raw : def) };
}

function strings(def: readonly string[]): Spec<string[]> {
  return { type: 'array', default: [...def], read: (raw) => (Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [...def]) };
}

function numeric(type: 'number' | 'integer', def: number, minimum?: number, maximum?: number): Spec<number> {
  return {
    type,
    default: def,
    minimum,
    maximum,
    read: (raw) => {
      if (typeof raw !== 'number' || !Number.isFinite(raw)) return def;
      let v = type === 'integer' ? Math.round(raw) : raw;
      if (minimum !== undefined) v = Math.max(minimum, v);
      if (maximum !== undefined) v = Math.min(maximum, v);
      return v;
    },
  };
}

/** The settings, by their name under `lifeThread.`. */
export const SETTINGS = {
  timeZone: text(''),
  'catchUp.reminderMaxLatenessHours': numeric('number', 12, 0),
  'catchUp.commandMaxLatenessHours': numeric('number', 1, 0),
  model: text(''),
  'openai.baseUrl': text(''),
  'openai.model': text(''),
  'openai.maxInputTokens': numeric('integer', 32768, 256),
  'cdp.endpoint': text('http://127.0.0.1:9222'),
  'cdp.chromiumPath': text(''),
  'cdp.allowRemote': flag(false),
  'cdp.chromiumArgs': strings([]),
  'continuity.folder': text('.life-thread'),
  'wake.target': choice('auto', WAKE_TARGETS),
  'wake.pulseMaxChars': numeric('integer', 600, 200, 4000),
  'wake.maxPerHour': numeric('integer', MAX_WAKES_PER_HOUR, 1),
  'wake.awayMinutes': numeric('number', 15, 0.05),
  'wake.prepare': flag(true),
  'continuity.opsTtlHours': numeric('number', 12, 1),
  'continuity.pressurePercent': numeric('number', 70, 10, 100),
  'demo.openWalkthrough': flag(false),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<K extends SettingName> = ReturnType<(typeof SETTINGS)[K]['read']>;

/** The section every name above lives in. */
export const SETTINGS_SECTION = 'lifeThread';

/** What `raw` (the value the editor holds, or undefined when unset) means for setting `name`. */
export function readSetting<K extends SettingName>(name: K, raw: unknown): SettingValue<K> {
  return SETTINGS[name].read(raw) as SettingValue<K>;
}
