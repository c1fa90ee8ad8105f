/**
 * The owner's zone: the IANA zone times in words are read in and answers are shown in, and where it
 * came from (README "Time"). One decision for every surface:
 * - a VS Code window: `lifeThread.timeZone`, else the zone the UI last reported (kept in the store's
 *   `owner.json`), else the extension host's zone;
 * - the CLI, `wait`, `run` and `mcp`: `--tz`, else `LIFE_THREAD_TZ`, else `owner.json` (what a window last
 *   decided), else the system zone.
 * Pure: the caller reads the setting, the environment and the file.
 */
import { z } from 'zod';
import { InputError } from '../errors';
import { validateZone } from './zone';

/** The store's file that carries a window's decision to the CLI and the MCP server. */
export const OWNER_FILE = 'owner.json';

export const ownerFileSchema = z
  .object({
    timeZone: z.string().min(1).max(64),
    source: z.enum(['setting', 'ui', 'host']),
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .strict();
export type OwnerFile = z.infer<typeof ownerFileSchema>;

/** `owner.json` as read: absent, a record, or a file that cannot be used (it is then left as it is until a window replaces it and says so). */
export type OwnerFileRead = { state: 'missing' } | { state: 'ok'; record: OwnerFile } | { state: 'corrupt'; problem: string };

/** Where a zone came from: the caller's flag, the environment, the setting, the UI, the extension host, or the machine. */
export type ZoneSource = 'flag' | 'env' | 'setting' | 'ui' | 'host' | 'system';

export interface OwnerZone {
  timeZone: string;
  source: ZoneSource;
  /** How a zone decided elsewhere reached this process: the store's owner.json, or the terminal's LIFE_THREAD_TZ. */
  via?: 'owner.json' | 'LIFE_THREAD_TZ';
  /** What was there but could not be used, and why (a bad setting, a corrupt owner.json). */
  ignored: string[];
}

export type ZoneInputs =
  | {
      surface: 'window';
      /** `lifeThread.timeZone` as set (empty: not set). */
      setting: string;
      owner: OwnerFileRead;
      /** The extension host's own zone. */
      host: string;
    }
  | {
      surface: 'outside';
      /** `--tz` (undefined: not given). */
      flag: string | undefined;
      /** `LIFE_THREAD_TZ` (undefined or blank: not set). */
      env: string | undefined;
      owner: OwnerFileRead;
      /** The machine's zone. */
      system: string;
    };

/** owner.json's text as a record, or why it cannot be used (not JSON, a field, a zone no one knows). */
export function parseOwnerFile(text: string): OwnerFileRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { state: 'corrupt', problem: `${OWNER_FILE} is not JSON` };
  }
  const parsed = ownerFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'file';
    return { state: 'corrupt', problem: `${OWNER_FILE}: ${field}: ${issue?.message ?? 'invalid'}` };
  }
  try {
    return { state: 'ok', record: { ...parsed.data, timeZone: validateZone(parsed.data.timeZone, 'timeZone') } };
  } catch (e) {
    if (e instanceof InputError) return { state: 'corrupt', problem: `${OWNER_FILE}: timeZone: ${e.reason}` };
    throw e;
  }
}

/**
 * The owner's zone and its source. Outside a window a bad `--tz` or `LIFE_THREAD_TZ` throws
 * InputError('tz') (the caller asked for it); a bad setting or a corrupt owner.json is passed over and
 * named in `ignored`.
 */
export function decideOwnerZone(inputs: ZoneInputs): OwnerZone {
  const ignored: string[] = [];
  const owner = inputs.owner;
  if (owner.state === 'corrupt') ignored.push(owner.problem);
  if (inputs.surface === 'window') {
    const setting = inputs.setting.trim();
    if (setting !== '') {
      try {
        return { timeZone: validateZone(setting, 'lifeThread.timeZone'), source: 'setting', ignored };
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        ignored.unshift(`lifeThread.timeZone: ${e.reason}`);
      }
    }
    // Only the UI's report speaks for this window: a setting or a host zone in the file is another window's.
    if (owner.state === 'ok' && owner.record.source === 'ui') return { timeZone: owner.record.timeZone, source: 'ui', ignored };
    return { timeZone: inputs.host, source: 'host', ignored };
  }
  if (inputs.flag !== undefined) return { timeZone: validateZone(inputs.flag, 'tz'), source: 'flag', ignored: [] };
  if (inputs.env !== undefined && inputs.env.trim() !== '') {
    let tz: string;
    try {
      tz = validateZone(inputs.env, 'tz');
    } catch (e) {
      if (e instanceof InputError) throw new InputError('tz', `LIFE_THREAD_TZ: ${e.reason}`);
      throw e;
    }
    // A window puts its setting into its terminals' LIFE_THREAD_TZ (and into owner.json): say so.
    const fromSetting = owner.state === 'ok' && owner.record.source === 'setting' && owner.record.timeZone === tz;
    return { timeZone: tz, source: fromSetting ? 'setting' : 'env', via: 'LIFE_THREAD_TZ', ignored: [] };
  }
  if (owner.state === 'ok') return { timeZone: owner.record.timeZone, source: owner.record.source, via: 'owner.json', ignored };
  return { timeZone: inputs.system, source: 'system', ignored };
}

/**
 * "zone America/Los_Angeles, source: ui (…)": the zone an answer used and where it came from. A zone the
 * caller gave (`--tz`, a tool's `tz`) is named alone. What was set but could not be used is named too.
 */
export function zoneWords(z: OwnerZone): string {
  if (z.source === 'flag') return `zone ${z.timeZone}`;
  const ignored = z.ignored.length ? `; not used: ${z.ignored.join('; ')}` : '';
  return `zone ${z.timeZone}, source: ${z.source} (${sourceWords(z)}${ignored})`;
}

function sourceWords(z: OwnerZone): string {
  const kept = z.via === 'owner.json' ? ', kept in the store by a VS Code window' : '';
  switch (z.source) {
    case 'flag':
      return '--tz';
    case 'env':
      return 'LIFE_THREAD_TZ';
    case 'setting':
      return `lifeThread.timeZone${z.via === 'LIFE_THREAD_TZ' ? ', passed in LIFE_THREAD_TZ' : kept}`;
    case 'ui':
      return `the zone the VS Code UI reported${kept}`;
    case 'host':
      return `the VS Code extension host's zone, as no Life Thread view has reported the UI's${kept}`;
    case 'system':
      return "this machine's zone";
  }
}
