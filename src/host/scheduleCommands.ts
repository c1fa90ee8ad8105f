import * as vscode from 'vscode';
import { firstDiskFolder, firstDiskFolderPath } from './diskFolders';
import { contrib } from './contrib';
import { InputError, NUL_REASON } from '../core/errors';
import { rowSentence } from '../core/rowView';
import type { RowKind } from '../core/time/limits';
import { onEnter, readPreview, whenInput, type Preview } from '../core/time/preview';
import { scheduleAsWhen } from '../core/time/describe';
import type { ScheduleRow } from '../core/schema';
import { COMMANDS } from '../shared/commands';
import type { ScheduleFeature } from './scheduleFeature';
import { windowOwner } from './scheduleFeature';
import { zoneForAnswer } from './ownerZone';
import { zoneWords, type OwnerZone } from '../core/time/ownerZone';

/**
 * Asks for a time with a live preview of the resolved instant (owner's zone and UTC) under the box.
 * `now` is the instant the accepted preview was computed at: resolving with it stores the instant the
 * user saw ("in 2 minutes" does not drift by the seconds spent before Enter). When the words, read
 * again at Enter, mean another instant than the one shown (the box stayed open; or the instant shown
 * has passed), Enter refreshes the preview and says so, and the next Enter accepts (core/time/preview).
 */
export async function askWhen(kind: RowKind, title: string, initial = ''): Promise<{ when?: string; cron?: string; now: Date; zone: OwnerZone } | undefined> {
  const zone = zoneForAnswer();
  const tz = zone.timeZone;
  const box = vscode.window.createInputBox();
  box.title = title;
  box.placeholder = kind === 'reminder' ? 'in 20 minutes · tomorrow at 9 · every weekday at 09:00 · cron 0 9 * * 1-5' : 'in 10 minutes · every 30m · every day at 02:00 · cron */5 * * * *';
  box.value = initial;
  box.ignoreFocusOut = true;
  /** The preview on screen; undefined while the box shows none (empty or unreadable words). */
  let shown: Preview | undefined;
  const preview = (value: string): void => {
    shown = undefined;
    if (!value.trim()) {
      box.validationMessage = undefined;
      box.prompt = `Times are read in ${zoneWords(zone)}.`;
      return;
    }
    try {
      shown = readPreview(value, tz, kind, new Date());
      box.validationMessage = undefined;
      box.prompt = shown.parsed.description;
    } catch (err) {
      box.prompt = undefined;
      box.validationMessage = err instanceof InputError ? err.reason : String(err);
    }
  };
  preview(box.value);
  return new Promise((resolve) => {
    let done = false;
    box.onDidChangeValue(preview);
    box.onDidAccept(() => {
      const value = box.value;
      if (!value.trim()) return;
      const outcome = onEnter(shown, value, tz, kind, new Date());
      if (outcome.kind === 'invalid') {
        shown = undefined;
        box.prompt = undefined;
        box.validationMessage = outcome.reason;
        return;
      }
      if (outcome.kind === 'refresh') {
        shown = outcome.preview;
        box.validationMessage = undefined;
        box.prompt = outcome.prompt;
        return;
      }
      done = true;
      resolve({ ...whenInput(value), now: outcome.preview.readAt, zone });
      box.hide();
    });
    box.onDidHide(() => {
      if (!done) resolve(undefined);
      box.dispose();
    });
    box.show();
  });
}

function workspaceRoot(): string | undefined {
  return firstDiskFolderPath();
}

export function registerScheduleCommands(context: vscode.ExtensionContext, feature: ScheduleFeature): void {
  const store = feature.store;
  const after = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    feature.dispatcher.requestPass();
    await feature.refresh();
    return result;
  };
  const fail = (err: unknown) => {
    void vscode.window.showErrorMessage(`Life Thread: ${err instanceof Error ? err.message : String(err)}`);
  };

  context.subscriptions.push(
    contrib.registerCommand(COMMANDS.addReminder, async (args?: { text?: string; when?: string; cron?: string }) => {
      try {
        const text =
          args?.text ??
          (await vscode.window.showInputBox({
            title: 'Add Reminder (1/2): what should the agent do?',
            prompt: 'The text is a prompt the agent runs at the due time, e.g. "check the nightly build and tell me what failed".',
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() ? (v.length > 4000 ? 'At most 4,000 characters.' : undefined) : 'Say what the reminder is for.'),
          }));
        if (!text) return undefined;
        const asked = args?.when || args?.cron ? { when: args.when, cron: args.cron, now: new Date(), zone: zoneForAnswer() } : await askWhen('reminder', 'Add Reminder (2/2): when?');
        if (!asked) return undefined;
        const { zone, ...when } = asked;
        const folder = workspaceRoot();
        const added = await after(store.addReminder({ text, ...when, tz: zone.timeZone, owner: windowOwner(), ...(folder ? { destination: { folder } } : {}) }));
        void vscode.window.showInformationMessage(`Reminder ${added.row.id}: ${added.description} (${zoneWords(zone)}).`);
        return added.row;
      } catch (err) {
        fail(err);
        return undefined;
      }
    }),
    contrib.registerCommand(COMMANDS.scheduleCommand, async (args?: { command?: string; when?: string; cron?: string; timeoutMinutes?: number }) => {
      try {
        const root = firstDiskFolder();
        if (!('path' in root)) throw new Error(`a scheduled command needs ${root.missing}: it runs from the workspace root`);
        const cwd = root.path;
        const command =
          args?.command ??
          (await vscode.window.showInputBox({
            title: 'Schedule Command (1/2): which shell command?',
            prompt: `Runs in bash from ${cwd}, in its own process group, with a timeout (default 2 min).`,
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() ? (v.includes('\0') ? `The command ${NUL_REASON}.` : undefined) : 'Type a command, e.g. npm test'),
          }));
        if (!command) return undefined;
        const asked = args?.when || args?.cron ? { when: args.when, cron: args.cron, now: new Date(), zone: zoneForAnswer() } : await askWhen('command', 'Schedule Command (2/2): when?');
        if (!asked) return undefined;
        const { zone, ...when } = asked;
        const added = await after(store.addCommand({ command, cwd, envPath: process.env.PATH, ...when, tz: zone.timeZone, timeoutMinutes: args?.timeoutMinutes, owner: windowOwner() }));
        void vscode.window.showInformationMessage(`Command ${added.row.id}: ${added.description} (${zoneWords(zone)}).`);
        return added.row;
      } catch (err) {
        fail(err);
        return undefined;
      }
    }),
    contrib.registerCommand(COMMANDS.listSchedule, async () => {
      await feature.refresh();
      const now = new Date();
      const rows = feature.currentRows;
      if (rows.length === 0) {
        const pick = await vscode.window.showInformationMessage(`Nothing scheduled. ${feature.health(now).line}.`, 'Add Reminder');
        if (pick) await vscode.commands.executeCommand(COMMANDS.addReminder);
        return rows;
      }
      const items = rows.map((r) => ({
        label: `${'command' in r ? '$(terminal)' : '$(bell)'} ${'command' in r ? r.command : r.text}`.slice(0, 120),
        description: r.id,
        detail: rowSentence(r, now),
        id: r.id,
      }));
      const pick = await vscode.window.showQuickPick(items, { title: `Life Thread schedule — ${feature.health(now).line}`, matchOnDetail: true, placeHolder: 'Pick a row to act on it' });
      if (!pick) return rows;
      const action = await vscode.window.showQuickPick(['Run now', 'Move…', 'Remove', 'Show log'], { title: pick.description });
      if (action === 'Run now') await runNowRow(feature, pick.id);
      if (action === 'Move…') await moveRow(feature, pick.id);
      if (action === 'Remove') await removeRow(feature, pick.id);
      if (action === 'Show log') await showLog(feature, pick.id);
      return rows;
    }),
  );
}

export async function runNowRow(feature: ScheduleFeature, id: string): Promise<void> {
  const r = await feature.store.runNow(id, new Date());
  feature.dispatcher.requestPass();
  await feature.refresh();
  void vscode.window.showInformationMessage(r.running ? `${id} is running now; it runs again after this run ends.` : `${id} runs on the next pass.`);
}

export async function moveRow(feature: ScheduleFeature, id: string): Promise<void> {
  const row = await feature.store.get(id);
  const asked = await askWhen(id.startsWith('c-') ? 'command' : 'reminder', `Move ${id}${row ? ` (${rowLabel(row)})` : ''}: new time`, row ? scheduleAsWhen(row.schedule, zoneForAnswer().timeZone) : '');
  if (!asked) return;
  const { zone, ...when } = asked;
  const moved = await feature.store.move(id, { ...when, tz: zone.timeZone });
  feature.dispatcher.requestPass();
  await feature.refresh();
  void vscode.window.showInformationMessage(`${id} moved: ${moved.description}${moved.running ? ' (it is running now: the change applies after this run)' : ''} (${zoneWords(zone)}).`);
}

/** A row as the user wrote it, short: the reminder's text or the command, in quotes. */
export function rowLabel(row: ScheduleRow): string {
  const text = ('command' in row ? row.command : row.text).replace(/\s+/g, ' ').trim();
  return `\u201c${text.length > 60 ? `${text.slice(0, 59)}\u2026` : text}\u201d`;
}

export async function removeRow(feature: ScheduleFeature, id: string): Promise<void> {
  const row = await feature.store.get(id);
  const what = row ? `${'command' in row ? 'command' : 'reminder'} ${rowLabel(row)} (${id})` : id;
  const ok = await vscode.window.showWarningMessage(`Remove ${what}? This cannot be undone.`, { modal: true }, 'Remove');
  if (ok !== 'Remove') return;
  await feature.store.remove(id);
  await feature.refresh();
}

/** Removes every row that has fired for good (one-shot rows fired or missed), after one confirmation. */
export async function clearFiredRows(feature: ScheduleFeature): Promise<number> {
  const done = feature.currentRows.filter((r) => r.status !== 'pending' && !r.claim);
  if (done.length === 0) {
    void vscode.window.showInformationMessage('Nothing to clear: no reminder or command has fired for good.');
    return 0;
  }
  const ok = await vscode.window.showWarningMessage(`Clear ${done.length} fired row${done.length === 1 ? '' : 's'} and their logs?`, { modal: true }, 'Clear');
  if (ok !== 'Clear') return 0;
  for (const r of done) await feature.store.remove(r.id).catch(() => undefined);
  await feature.refresh();
  return done.length;
}

export async function showLog(feature: ScheduleFeature, id: string): Promise<void> {
  const uri = vscode.Uri.joinPath(vscode.Uri.file(feature.storeDir), 'logs', `${id}.log`);
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    void vscode.window.showInformationMessage(`${id} has no run log yet.`);
    return;
  }
  await vscode.window.showTextDocument(uri, { preview: true });
}
