/**
 * Agent mode's turns as Life Thread's own provider sees them (src/host/agentTurns.ts), with Copilot
 * Chat's agent on the scripted model (docs/test-host.md "Agent mode"): a pulse sent into Agent mode is
 * verified when the model's request holds it beside the tool call that set the wake, and stays
 * unverified, with the reason, when another conversation was on screen; a wake that falls due while the
 * agent answers waits on disk (held: busy) and goes once, right after the final answer; an after-turn
 * request runs after that final answer, not on a timer. The window is blurred, as every phase starts it
 * (test/host/index.ts), so a pulse goes at once (src/host/wakeFocus.ts).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ELSEWHERE_REASON } from '../../../../../src/core/wake/receipt';
import type { WakeRow } from '../../../../../src/core/wake/row';
import { WakeStore } from '../../../../../src/node/wakes';
import { lifeThread, runnerAction, waitFor } from '../../../helpers';
import { COPILOT_AGENT, askAgent, enableCopilotChat } from '../../../copilotAgent';
import { lastUser, useScriptedModel, type ChatBody } from '../../../scriptedModel';

const holds = (b: ChatBody, marker: string, role?: string): boolean => b.messages.some((m) => (role === undefined || m.role === role) && (m.content ?? '').includes(marker));
const at = (b: ChatBody, marker: string, role: string): number => b.messages.findIndex((m) => m.role === role && (m.content ?? '').includes(marker));
const callAt = (b: ChatBody, tool: string, marker: string): number =>
  b.messages.findIndex((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.name === tool && c.function.arguments.includes(marker)));
/** The request whose newest user message is the pulse of `marker` (the model is asked to answer it). */
const pulseRequests = (bodies: readonly ChatBody[], marker: string): ChatBody[] => bodies.filter((b) => lastUser(b).includes(marker) && lastUser(b).includes('life_wake:'));

/** The index of the request answering the tool result of the turn `marker` began (its final answer here), once it came. */
function finalRequest(bodies: readonly ChatBody[], marker: string): number | undefined {
  const i = bodies.findIndex((b) => lastUser(b).includes(marker) && b.messages[b.messages.length - 1]?.role === 'tool');
  return i >= 0 ? i : undefined;
}

/** Reads the row from wakes.json with a store of its own (nothing remembered from the window's): what is on disk. */
function onDisk(storeDir: string, id: string): Promise<WakeRow | undefined> {
  return new WakeStore({ dir: storeDir }).get(id);
}

const SLOW = `${'SLOW-WORD '.repeat(20)}done.`;
const SLOW_WORD_MS = 400;

describe('Agent mode on Life Thread\u2019s provider: receipts, busy, after the turn', () => {
  /** What the model was asked and when, for the after-turn test's order of events. */
  const events: { at: number; what: string }[] = [];
  const server = useScriptedModel((b) => {
    const last = b.messages[b.messages.length - 1];
    const asked = lastUser(b);
    if (asked.includes('life_wake:')) return { text: 'CONTINUING after the wake' };
    if (last?.role === 'tool') {
      if (asked.includes('BUSY-FIRST')) return { text: SLOW, wordDelayMs: SLOW_WORD_MS };
      if (asked.includes('AFTER-FIRST')) {
        events.push({ at: Date.now(), what: 'the after-turn tool\u2019s answer at the model' });
        return { text: SLOW, wordDelayMs: SLOW_WORD_MS };
      }
      return { text: 'SLEEPING until the wake' };
    }
    if (asked.includes('RCPT-FIRST')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'RCPT-WAKE the tests ended: fix them', when: 'job.done', job_id: 'tests' } }] };
    if (asked.includes('ELSE-FIRST')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'ELSE-WAKE the timer is up', delay_seconds: 12 } }] };
    if (asked.includes('BUSY-FIRST')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'BUSY-WAKE the timer is up', delay_seconds: 3 } }] };
    if (asked.includes('AFTER-FIRST')) return { toolCalls: [{ name: 'lifethread_afterTurn', args: { action: 'reload_window' } }] };
    return { text: 'OTHER-ANSWER' };
  });
  let model: { vendor: string; id: string };

  before(async () => {
    await lifeThread();
    await enableCopilotChat();
    model = { vendor: 'lifethread', id: server.modelId };
  });

  after(async () => {
    await runnerAction({ action: 'blur' });
  });

  async function agentWake(api: Awaited<ReturnType<typeof lifeThread>>, marker: string): Promise<WakeRow> {
    const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => r.text?.startsWith(marker)), 10_000, `the agent\u2019s wake ${marker}`);
    assert.deepEqual(row.sender, { kind: 'agent' });
    return row;
  }

  async function fired(api: Awaited<ReturnType<typeof lifeThread>>, id: string, what: (r: WakeRow) => boolean, label: string): Promise<WakeRow> {
    return waitFor(async () => {
      const r = await api.wakes.store.get(id);
      return r?.status === 'fired' && what(r) ? r : undefined;
    }, 20_000, label);
  }

  it('a job wake set in Agent mode: the task fails, the pulse reaches the same conversation beside the call that set it; the row is delivered via agent, verified', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const answer = await askAgent('RCPT-FIRST run the tests; I sleep until they end', model);
    assert.equal(answer.metadata?.agentId, COPILOT_AGENT);
    const row = await agentWake(api, 'RCPT-WAKE');
    assert.equal(row.status, 'pending');
    const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'tests');
    assert.ok(task, 'the fixture task tests exists');
    await vscode.tasks.executeTask(task);
    const [woken] = await waitFor(() => {
      const found = pulseRequests(server.requests, 'RCPT-WAKE');
      return found.length > 0 ? found : undefined;
    }, 45_000, 'the pulse at the model');
    assert.ok(woken);
    assert.match(lastUser(woken), /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    const order = [at(woken, 'RCPT-FIRST', 'user'), callAt(woken, 'lifethread_sendToLifeThread', 'RCPT-WAKE'), at(woken, row.id, 'tool'), at(woken, 'life_wake:', 'user')];
    assert.ok(order.every((i) => i >= 0), `the first message, the tool call, its answer and the pulse are in the request (positions ${order.join(', ')})`);
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'in the order they happened');
    const done = await fired(api, row.id, (r) => r.fact?.unverified === undefined, 'the row verified');
    assert.equal(done.fact?.delivered, true);
    assert.equal(done.fact?.via, 'agent');
    assert.equal(done.fact?.reason, undefined);
    assert.equal((await onDisk(api.storeDir, row.id))?.fact?.unverified, undefined, 'on disk too');
  });

  it('another conversation on screen when the wake fires: the pulse lands there, and the row stays unverified with that reason', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await askAgent('ELSE-FIRST sleep a little', model);
    const row = await agentWake(api, 'ELSE-WAKE');
    const first = server.requests.length;
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await askAgent('ELSE-OTHER something else meanwhile', model);
    assert.equal((await api.wakes.store.get(row.id))?.status, 'pending', 'the second conversation was on screen before the wake fell due');
    const [woken] = await waitFor(() => {
      const found = pulseRequests(server.requests.slice(first), 'ELSE-WAKE');
      return found.length > 0 ? found : undefined;
    }, 30_000, 'the pulse at the model');
    assert.ok(woken);
    assert.ok(holds(woken, 'ELSE-OTHER', 'user'), 'the pulse went into the conversation on screen');
    assert.equal(callAt(woken, 'lifethread_sendToLifeThread', 'ELSE-WAKE'), -1, 'which does not hold the call that set the wake');
    const done = await fired(api, row.id, (r) => r.fact?.reason !== undefined, 'the reason stored');
    assert.equal(done.fact?.via, 'agent');
    assert.equal(done.fact?.unverified, true);
    assert.equal(done.fact?.reason, ELSEWHERE_REASON);
    assert.equal((await onDisk(api.storeDir, row.id))?.fact?.reason, ELSEWHERE_REASON, 'on disk too');
  });

  it('a timer wake due while the agent streams its answer slowly waits on disk (held: busy) and goes once, within 1 s of the final answer', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const turn = askAgent('BUSY-FIRST wake me in three seconds', model, 60_000);
    const row = await agentWake(api, 'BUSY-WAKE');
    const slow = await waitFor(() => finalRequest(server.requests, 'BUSY-FIRST'), 15_000, 'the slow answer begun');
    const heldSeen = await waitFor(async () => ((await onDisk(api.storeDir, row.id))?.heldReason === 'busy' ? Date.now() : undefined), 15_000, 'held: busy in wakes.json');
    const ended = (): number | undefined => server.answered.find((a) => a.index === slow)?.at;
    assert.equal(ended(), undefined, 'held while the final answer was still streaming');
    assert.equal(pulseRequests(server.requests, 'BUSY-WAKE').length, 0, 'not sent meanwhile');
    await turn;
    const finalAt = await waitFor(ended, 10_000, 'the final answer ended');
    assert.ok(finalAt > heldSeen);
    const done = await fired(api, row.id, () => true, 'delivered');
    assert.equal(done.fact?.via, 'agent');
    const firedAt = Date.parse(done.firedAt ?? '');
    assert.ok(firedAt >= finalAt && firedAt - finalAt <= 1000, `delivered ${firedAt - finalAt} ms after the final answer (want 0..1000)`);
    await waitFor(() => pulseRequests(server.requests, 'BUSY-WAKE')[0], 20_000, 'the pulse at the model');
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(pulseRequests(server.requests, 'BUSY-WAKE').length, 1, 'the pulse went once');
  });

  it('Life Thread\u2019s own requests do not count: while @life\u2019s model request runs, Agent mode is not busy; while the agent\u2019s runs, it is', async () => {
    const api = await lifeThread();
    let release: () => void = () => undefined;
    server.hold = new Promise<void>((r) => (release = r));
    try {
      const before = server.requests.length;
      const life = vscode.commands.executeCommand('workbench.action.chat.open', { query: '@life OWN-TURN what is next?', mode: 'ask', isPartialQuery: false, blockOnResponse: true });
      await waitFor(() => server.requests.slice(before).find((b) => lastUser(b).includes('OWN-TURN')), 20_000, '@life\u2019s request at the model');
      assert.equal(api.agentTurns.busy, false, '@life\u2019s request is not an agent\u2019s');
      release();
      await life;
      server.hold = new Promise<void>((r) => (release = r));
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      const agent = askAgent('AGENT-TURN what is next?', model);
      await waitFor(() => server.requests.slice(before).find((b) => lastUser(b).includes('AGENT-TURN')), 20_000, 'the agent\u2019s request at the model');
      assert.equal(api.agentTurns.busy, true, 'the agent\u2019s request makes it busy');
      release();
      await agent;
      await waitFor(() => (api.agentTurns.busy ? undefined : true), 5_000, 'not busy after the final answer');
    } finally {
      release();
      server.hold = undefined;
    }
  });

  it('an after-turn request from Agent mode runs after the turn\u2019s final answer, which streams longer than the 3 s of the old rule', async () => {
    const api = await lifeThread();
    const executed: string[] = [];
    // The reload itself would end this test host; recording it shows when it would have run.
    api.afterTurn.executor = async (command) => {
      executed.push(command);
      events.push({ at: Date.now(), what: 'the reload carried out' });
    };
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const answer = await askAgent('AFTER-FIRST reload the window when you are done', model);
    assert.equal(answer.type, 'confirmation', 'the turn waits on the user\u2019s Allow');
    assert.equal(answer.toolId, 'lifethread_afterTurn');
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    const slow = await waitFor(() => finalRequest(server.requests, 'AFTER-FIRST'), 15_000, 'the slow answer begun');
    const finalAt = await waitFor(() => server.answered.find((a) => a.index === slow)?.at, 30_000, 'the final answer ended');
    events.push({ at: finalAt, what: 'the final answer ended' });
    await waitFor(() => (executed.length > 0 ? true : undefined), 10_000, 'the reload carried out');
    const order = [...events].sort((a, b) => a.at - b.at).map((e) => e.what);
    assert.deepEqual(order, ['the after-turn tool\u2019s answer at the model', 'the final answer ended', 'the reload carried out']);
    assert.deepEqual(executed, ['workbench.action.reloadWindow']);
    const state = JSON.parse(readFileSync(join(api.storeDir, 'after-turn.json'), 'utf8')) as { current: { status: string; action: string } };
    assert.equal(state.current.status, 'running');
  });
});
