/**
 * The pause is one state for every window of the store: a pause or a resume written to the store's
 * pause file by someone else (another window, the CLI) reaches this window's state, sidebar, status bar
 * and Doctor within a second or so, and a resume from outside releases the wakes held here.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { writeWakesPaused } from '../../../../../src/node/wakePause';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

/** Lines of a Doctor report that state the wakes' pause, paused or active (a held row's own line is about that row). */
function pauseStatements(report: string): string[] {
  return report.split('\n').filter((l) => !/^\s+- `/.test(l) && (/\bpaused\b/i.test(l) || /^- Wakes: /.test(l)));
}

describe('the wakes pause is shared by every window of the store', () => {
  const server = useScriptedModel(() => ({ text: 'woken after an outside resume' }));

  it('follows a pause and a resume written by another process, with one pause statement in Doctor', async () => {
    const api = await lifeThread();
    await api.ready;
    await vscode.commands.executeCommand('lifeThread.resumeWakes');
    // A Doctor report left open follows too: it is re-read when the pause changes.
    const open = (await api.doctor.open()).document;
    const follows = async (paused: boolean, what: string): Promise<void> => {
      const t0 = Date.now();
      const doctorSays = paused ? '- Wakes: **paused**' : '- Wakes: active';
      await waitFor(
        () =>
          api.wakes.paused === paused && api.model.health.state === (paused ? 'paused' : 'healthy') && api.schedule.statusText.endsWith(paused ? '· paused' : '· healthy') && open.getText().includes(doctorSays)
            ? true
            : undefined,
        1500,
        `${what}: state, sidebar, status bar and the open Doctor follow (now paused=${String(api.wakes.paused)}, sidebar ${api.model.health.state}, status "${api.schedule.statusText}", Doctor ${pauseStatements(open.getText()).join(' | ')})`,
      );
      assert.ok(Date.now() - t0 <= 1500);
    };

    await writeWakesPaused(api.storeDir, true);
    await follows(true, 'paused from outside');
    const pausedReport = await api.doctor.report();
    assert.equal(pauseStatements(pausedReport).length, 1, `one pause statement in Doctor:\n${pauseStatements(pausedReport).join('\n')}`);
    assert.match(pausedReport, /- Wakes: \*\*paused\*\*/);

    const id = await vscode.lm
      .invokeTool('lifethread_sendToLifeThread', { input: { text: 'OUTSIDE-RESUME held', delay_seconds: 1 }, toolInvocationToken: undefined })
      .then((r) => /w-[\w-]+/.exec(r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''))?.[0] ?? assert.fail('no wake id'));
    await waitFor(async () => ((await api.wakes.store.get(id))?.status === 'held' ? true : undefined), 10_000, 'the wake held while paused');

    await writeWakesPaused(api.storeDir, false);
    await follows(false, 'resumed from outside');
    const activeReport = await api.doctor.report();
    assert.deepEqual(
      pauseStatements(activeReport).map((l) => l.slice(0, 17)),
      ['- Wakes: active; '],
      `Doctor says active once and nothing paused:\n${pauseStatements(activeReport).join('\n')}`,
    );
    await waitFor(async () => ((await api.wakes.store.get(id))?.fact?.delivered ? true : undefined), 15_000, 'the held wake released by the outside resume');
    await waitFor(() => (server.requests.some((b) => b.messages.some((m) => (m.content ?? '').includes('OUTSIDE-RESUME'))) ? true : undefined), 10_000, 'the released pulse reaches the model');
  });
});
