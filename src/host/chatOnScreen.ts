import * as vscode from 'vscode';
import { readFile, rm } from 'node:fs/promises';
import { importChatExport } from '../core/chatImport';
import { errorLine } from '../core/errors';
import { conversation } from '../core/topicSpan';
import { appendMessages, readTranscript } from '../node/topicFiles';
import { CHAT_PARTICIPANT_ID } from '../shared/commands';

/** How long the chat export may take before the import gives up (it writes one small file). */
const CHAT_EXPORT_TIMEOUT_MS = 5_000;

/**
 * The conversation on screen, when it was held with another participant: VS Code's chat export
 * (`workbench.action.chat.export` with a target file writes the last focused chat session) is read,
 * its requests other than @life's get ids minted from the export's request ids, and the ones the
 * transcript does not hold yet are appended. `file` is where the export is written (removed after).
 */
export async function importChatOnScreen(topic: string, dir: string, file: string, log: vscode.LogOutputChannel): Promise<{ imported: number; participants: string[]; note?: string }> {
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), CHAT_EXPORT_TIMEOUT_MS)));
    const done = await Promise.race([vscode.commands.executeCommand('workbench.action.chat.export', vscode.Uri.file(file)).then(() => 'done' as const), timeout]);
    clearTimeout(timer);
    if (done === 'timeout') return { imported: 0, participants: [], note: 'the chat export did not answer' };
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return { imported: 0, participants: [], note: 'no chat was on screen to export' };
    }
    const chat = importChatExport(JSON.parse(text) as unknown, { ownParticipant: CHAT_PARTICIPANT_ID, now: new Date() });
    const known = new Set((await readTranscript(dir)).messages.map((m) => m.id));
    const fresh = chat.messages.filter((m) => !known.has(m.id));
    // Only /partition and /resume turns on screen are nothing to hand over: write nothing then.
    if (conversation(fresh).length === 0) return { imported: 0, participants: chat.participants };
    await appendMessages(dir, fresh);
    if (fresh.length) log.info(`partition: imported ${fresh.length} message(s) of ${chat.participants.map((p) => p || 'the default agent').join(', ')} from the chat on screen into topic ${topic}`);
    return { imported: fresh.length, participants: chat.participants };
  } catch (err) {
    log.warn(`partition: the chat on screen could not be imported: ${String(err)}`);
    return { imported: 0, participants: [], note: `the chat on screen could not be imported (${errorLine(err)})` };
  } finally {
    await rm(file, { force: true }).catch(() => undefined);
  }
}
