/**
 * The OpenAI-compatible wire format: neutral messages → chat-completions messages and request bodies,
 * and the incremental SSE parser on realistic streams (chunks cut mid-line, tool-call arguments in
 * fragments, CRLF, no [DONE], server errors, garbage).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatStreamParser, requestBody, toWireMessages, type NeutralMessage, type NeutralTool, type StreamEvent } from '../../src/core/openai';

/** One SSE event line as servers send it: `data: <json>` and a blank line. */
const sse = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1759300000, model: 'qwen2.5:7b', choices: [{ index: 0, delta, finish_reason: finish }] });
const DONE = 'data: [DONE]\n\n';

/** Feeds the text in pieces of the given sizes (cycled), then ends the stream. */
function feed(text: string, sizes: readonly number[] = [text.length]): StreamEvent[] {
  const p = new ChatStreamParser();
  const out: StreamEvent[] = [];
  let at = 0;
  let i = 0;
  while (at < text.length) {
    const n = Math.max(1, sizes[i % sizes.length] ?? 1);
    out.push(...p.push(text.slice(at, at + n)));
    at += n;
    i++;
  }
  out.push(...p.end());
  return out;
}

const texts = (events: readonly StreamEvent[]): string =>
  events
    .filter((e): e is Extract<StreamEvent, { kind: 'text' }> => e.kind === 'text')
    .map((e) => e.text)
    .join('');
const calls = (events: readonly StreamEvent[]): Extract<StreamEvent, { kind: 'toolCall' }>[] =>
  events.filter((e): e is Extract<StreamEvent, { kind: 'toolCall' }> => e.kind === 'toolCall');
const dones = (events: readonly StreamEvent[]): Extract<StreamEvent, { kind: 'done' }>[] =>
  events.filter((e): e is Extract<StreamEvent, { kind: 'done' }> => e.kind === 'done');

describe('toWireMessages', () => {
  it('user, system and assistant text become plain content', () => {
    const msgs: NeutralMessage[] = [
      { role: 'system', parts: [{ kind: 'text', text: 'You deliver reminders.' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'Check the ' }, { kind: 'text', text: 'nightly build.' }] },
      { role: 'assistant', parts: [{ kind: 'text', text: 'The build is green.' }] },
    ];
    assert.deepEqual(toWireMessages(msgs), [
      { role: 'system', content: 'You deliver reminders.' },
      { role: 'user', content: 'Check the nightly build.' },
      { role: 'assistant', content: 'The build is green.' },
    ]);
  });

  it('an assistant turn with only tool calls has content null and the calls with JSON arguments', () => {
    const wire = toWireMessages([
      {
        role: 'assistant',
        parts: [
          { kind: 'toolCall', callId: 'call_a', name: 'lifethread_remind', input: { action: 'list' } },
          { kind: 'toolCall', callId: 'call_b', name: 'lifethread_schedule', input: { action: 'log', id: 'c-abc' } },
        ],
      },
    ]);
    assert.deepEqual(wire, [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lifethread_remind', arguments: '{"action":"list"}' } },
          { id: 'call_b', type: 'function', function: { name: 'lifethread_schedule', arguments: '{"action":"log","id":"c-abc"}' } },
        ],
      },
    ]);
  });

  it('an assistant turn with text and a tool call keeps the text; undefined input is sent as {}', () => {
    const wire = toWireMessages([
      { role: 'assistant', parts: [{ kind: 'text', text: 'Let me look.' }, { kind: 'toolCall', callId: 'call_1', name: 'lifethread_remind', input: undefined }] },
    ]);
    assert.deepEqual(wire, [
      { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lifethread_remind', arguments: '{}' } }] },
    ]);
  });

  it('an empty assistant turn has content "" and no tool_calls key', () => {
    const [m] = toWireMessages([{ role: 'assistant', parts: [] }]);
    assert.deepEqual(m, { role: 'assistant', content: '' });
    assert.ok(m && !('tool_calls' in m));
  });

  it('tool results become role "tool" messages, in order, and a user message with only results adds no user message', () => {
    const wire = toWireMessages([
      { role: 'user', parts: [{ kind: 'text', text: 'What is scheduled?' }] },
      { role: 'assistant', parts: [{ kind: 'toolCall', callId: 'call_1', name: 'lifethread_remind', input: { action: 'list' } }, { kind: 'toolCall', callId: 'call_2', name: 'lifethread_schedule', input: { action: 'list' } }] },
      { role: 'user', parts: [{ kind: 'toolResult', callId: 'call_1', text: 'No reminders.' }, { kind: 'toolResult', callId: 'call_2', text: 'One command: c-1.' }] },
    ]);
    assert.equal(wire.length, 4);
    assert.deepEqual(wire[2], { role: 'tool', tool_call_id: 'call_1', content: 'No reminders.' });
    assert.deepEqual(wire[3], { role: 'tool', tool_call_id: 'call_2', content: 'One command: c-1.' });
  });

  it('tool results followed by user text: the tool messages come first, then the text', () => {
    const wire = toWireMessages([{ role: 'user', parts: [{ kind: 'toolResult', callId: 'call_9', text: 'done' }, { kind: 'text', text: 'Now summarise.' }] }]);
    assert.deepEqual(wire, [
      { role: 'tool', tool_call_id: 'call_9', content: 'done' },
      { role: 'user', content: 'Now summarise.' },
    ]);
  });

  it('an empty user message still yields a user message', () => {
    assert.deepEqual(toWireMessages([{ role: 'user', parts: [] }]), [{ role: 'user', content: '' }]);
  });
});

describe('requestBody', () => {
  const msgs: NeutralMessage[] = [{ role: 'user', parts: [{ kind: 'text', text: 'hi' }] }];
  const tools: NeutralTool[] = [
    { name: 'lifethread_remind', description: 'Reminders', inputSchema: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'] } },
    { name: 'lifethread_noinput', description: 'No input' },
  ];

  it('without tools: no tools and no tool_choice key; streams; no max_tokens unless given', () => {
    const body = requestBody('qwen2.5:7b', msgs, [], 'required');
    assert.deepEqual(body, { model: 'qwen2.5:7b', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(!('tools' in body) && !('tool_choice' in body) && !('max_tokens' in body));
  });

  it('with tools: function tools with their schema (an empty object schema when none) and the tool_choice given', () => {
    const body = requestBody('gpt-4o-mini', msgs, tools, 'auto', 512);
    assert.deepEqual(body, {
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        { type: 'function', function: { name: 'lifethread_remind', description: 'Reminders', parameters: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'] } } },
        { type: 'function', function: { name: 'lifethread_noinput', description: 'No input', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: 'auto',
      max_tokens: 512,
    });
    assert.deepEqual((requestBody('m', msgs, tools, 'required') as { tool_choice?: unknown }).tool_choice, 'required');
  });
});

describe('ChatStreamParser', () => {
  const textStream = chunk({ role: 'assistant', content: '' }) + chunk({ content: 'The nightly ' }) + chunk({ content: 'build failed: ' }) + chunk({ content: '3 tests, see log ✓' }) + chunk({}, 'stop') + DONE;

  it('text deltas in one piece: text, then done', () => {
    const events = feed(textStream);
    assert.equal(texts(events), 'The nightly build failed: 3 tests, see log ✓');
    assert.deepEqual(dones(events), [{ kind: 'done', finishReason: 'stop' }]);
    assert.equal(events.at(-1)?.kind, 'done');
    assert.equal(calls(events).length, 0);
  });

  it('the same stream cut at every size, including mid-`data:` and mid-JSON, gives the same events', () => {
    const whole = feed(textStream);
    for (const sizes of [[1], [2], [3], [7], [13, 1, 5], [64]]) {
      assert.deepEqual(feed(textStream, sizes), whole, `sizes ${sizes.join(',')}`);
    }
  });

  it('a line cut right after "data:" and right before its newline is held until complete', () => {
    const p = new ChatStreamParser();
    const line = chunk({ content: 'hello' });
    assert.deepEqual(p.push('da'), []);
    assert.deepEqual(p.push('ta:'), []);
    assert.deepEqual(p.push(line.slice(5, line.indexOf('\n'))), []);
    assert.deepEqual(p.push('\n\n'), [{ kind: 'text', text: 'hello' }]);
  });

  it('CRLF line endings', () => {
    const crlf = textStream.replace(/\n/g, '\r\n');
    assert.deepEqual(feed(crlf), feed(textStream));
    // A CR and its LF in different chunks.
    assert.deepEqual(feed(crlf, [1]), feed(textStream));
  });

  it('comments, event: and id: lines and blank lines are ignored', () => {
    const s = ': keep-alive\n\nevent: message\nid: 1\n' + chunk({ content: 'ok' }) + 'retry: 1000\n' + DONE;
    const events = feed(s);
    assert.equal(texts(events), 'ok');
    assert.equal(dones(events).length, 1);
  });

  it('"data:" without a space after the colon', () => {
    const s = `data:${JSON.stringify({ choices: [{ delta: { content: 'tight' } }] })}\n\ndata:[DONE]\n\n`;
    const events = feed(s);
    assert.equal(texts(events), 'tight');
    assert.deepEqual(dones(events), [{ kind: 'done', finishReason: 'stop' }]);
  });

  it('null content and empty deltas yield nothing', () => {
    const events = feed(chunk({ role: 'assistant', content: null }) + chunk({}) + DONE);
    assert.deepEqual(events, [{ kind: 'done', finishReason: 'stop' }]);
  });

  it('a non-streamed `message` in a choice is read as text', () => {
    const s = sse({ choices: [{ index: 0, message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }] }) + DONE;
    assert.equal(texts(feed(s)), 'whole answer');
  });

  // Two parallel calls as OpenAI streams them: id and name in the first delta of each index,
  // arguments in fragments, the indices interleaved.
  const toolStream =
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_A', type: 'function', function: { name: 'lifethread_remind', arguments: '' } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"act' } }] }) +
    chunk({ tool_calls: [{ index: 1, id: 'call_B', type: 'function', function: { name: 'lifethread_schedule', arguments: '{"action"' } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ion": "ad' } }] }) +
    chunk({ tool_calls: [{ index: 1, function: { arguments: ': "log", "id": "c-' } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'd", "text": "stand up \\"now\\"", "when": "in 20 minutes"}' } }] }) +
    chunk({ tool_calls: [{ index: 1, function: { arguments: 'k3x9"}' } }] }) +
    chunk({}, 'tool_calls') +
    DONE;

  it('tool-call arguments split across deltas and two indices: two whole calls at finish_reason tool_calls, in index order', () => {
    const p = new ChatStreamParser();
    const lines = toolStream.split('\n\n').filter(Boolean).map((l) => `${l}\n\n`);
    const finishLine = lines.findIndex((l) => l.includes('"finish_reason":"tool_calls"'));
    const before: StreamEvent[] = [];
    for (const l of lines.slice(0, finishLine)) before.push(...p.push(l));
    assert.deepEqual(before, [], 'nothing is emitted while the arguments are incomplete');
    const atFinish = p.push(lines[finishLine] ?? '');
    assert.deepEqual(atFinish, [
      { kind: 'toolCall', callId: 'call_A', name: 'lifethread_remind', input: { action: 'add', text: 'stand up "now"', when: 'in 20 minutes' } },
      { kind: 'toolCall', callId: 'call_B', name: 'lifethread_schedule', input: { action: 'log', id: 'c-k3x9' } },
    ]);
    const rest = [...p.push(lines.slice(finishLine + 1).join('')), ...p.end()];
    assert.equal(calls(rest).length, 0, 'calls are emitted once');
    assert.equal(dones(rest).length, 1);
  });

  it('the tool stream cut into small pieces gives the same events', () => {
    const whole = feed(toolStream);
    assert.equal(calls(whole).length, 2);
    for (const sizes of [[1], [5], [17, 3]]) assert.deepEqual(feed(toolStream, sizes), whole);
  });

  it('a call with no arguments gets {} and a call without id gets call_<index>', () => {
    const s = chunk({ tool_calls: [{ index: 2, function: { name: 'lifethread_remind' } }] }) + chunk({}, 'tool_calls') + DONE;
    assert.deepEqual(calls(feed(s)), [{ kind: 'toolCall', callId: 'call_2', name: 'lifethread_remind', input: {} }]);
  });

  it('tool calls without a finish_reason are emitted at [DONE]', () => {
    const s = chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { name: 'f', arguments: '{"a":1}' } }] }) + DONE;
    const events = feed(s);
    assert.deepEqual(events, [
      { kind: 'toolCall', callId: 'call_x', name: 'f', input: { a: 1 } },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it('[DONE] ends the stream once: a second [DONE] and end() add no second done', () => {
    const p = new ChatStreamParser();
    const events = [...p.push(chunk({ content: 'a' }) + DONE + DONE), ...p.end()];
    assert.deepEqual(events, [
      { kind: 'text', text: 'a' },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it(
    'done carries the finish_reason the server sent (tool_calls, length)',
    () => {
      assert.deepEqual(dones(feed(toolStream)), [{ kind: 'done', finishReason: 'tool_calls' }]);
      assert.deepEqual(dones(feed(chunk({ content: 'cut' }) + chunk({}, 'length') + DONE)), [{ kind: 'done', finishReason: 'length' }]);
    },
  );

  it('a stream that ends without [DONE]: end() flushes pending calls and the last unterminated line, then done with null', () => {
    const p = new ChatStreamParser();
    const head = p.push(chunk({ content: 'partial ' }) + chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{"x":' } }] }));
    assert.deepEqual(head, [{ kind: 'text', text: 'partial ' }]);
    // The last line has no newline: end() must still read it.
    const tail = p.push(`data: ${JSON.stringify({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '2}' } }] } }] })}`);
    assert.deepEqual(tail, []);
    assert.deepEqual(p.end(), [
      { kind: 'toolCall', callId: 'call_1', name: 'f', input: { x: 2 } },
      { kind: 'done', finishReason: null },
    ]);
  });

  it('an empty stream ends with done null', () => {
    assert.deepEqual(new ChatStreamParser().end(), [{ kind: 'done', finishReason: null }]);
  });

  it('an error object in the stream throws with the server\'s message', () => {
    const p = new ChatStreamParser();
    assert.deepEqual(p.push(chunk({ content: 'start' })), [{ kind: 'text', text: 'start' }]);
    assert.throws(
      () => p.push(sse({ error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error', code: null } })),
      (err: unknown) => err instanceof Error && err.message.includes('model "llama9" not found, try pulling it first') && err.message.includes('model server reported'),
    );
  });

  it('an error object split across chunks still throws', () => {
    const line = sse({ error: { message: 'context length exceeded' } });
    const p = new ChatStreamParser();
    assert.deepEqual(p.push(line.slice(0, 20)), []);
    assert.throws(() => p.push(line.slice(20)), /context length exceeded/);
  });

  it(
    'an error that is a bare string (not an object with a message) also throws',
    () => {
      assert.throws(() => feed(sse({ error: 'rate limit exceeded' })), /rate limit exceeded/);
      assert.throws(() => feed(sse({ error: { code: 503, type: 'overloaded' } })), /model server/);
    },
  );

  it('a data line that is not JSON throws naming the line', () => {
    const p = new ChatStreamParser();
    assert.throws(() => p.push('data: <html>502 Bad Gateway</html>\n'), (err: unknown) => err instanceof Error && /not JSON/.test(err.message) && err.message.includes('<html>502 Bad Gateway</html>'));
    // Truncated JSON at the end of a stream (no newline) is read by end() and throws too.
    const q = new ChatStreamParser();
    q.push('data: {"choices":[{"delta":{"content":"ha');
    assert.throws(() => q.end(), (err: unknown) => err instanceof Error && err.message.includes('{"choices":[{"delta":{"content":"ha'));
  });

  it('tool arguments that are not JSON throw naming the tool and the arguments', () => {
    const s = chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'lifethread_remind', arguments: '{"action": "add", "text": ' } }] }) + chunk({}, 'tool_calls');
    const p = new ChatStreamParser();
    assert.throws(
      () => p.push(s),
      (err: unknown) => err instanceof Error && err.message.includes('lifethread_remind') && err.message.includes('not JSON') && err.message.includes('{"action": "add", "text": '),
    );
    // Also when the stream just ends.
    const q = new ChatStreamParser();
    q.push(chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'g', arguments: 'action=add' } }] }));
    assert.throws(() => q.end(), /tool call g with arguments that are not JSON: action=add/);
  });

  it(
    'parallel calls that reuse index 0 with different ids stay two calls (Ollama: ollama/ollama#15457, #15497)',
    () => {
      const s =
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"path":"x.py"}' } }] }) +
        chunk({ tool_calls: [{ index: 0, id: 'call_2', type: 'function', function: { name: 'b', arguments: '{"path":"y.py"}' } }] }) +
        chunk({}, 'tool_calls') +
        DONE;
      assert.deepEqual(calls(feed(s)), [
        { kind: 'toolCall', callId: 'call_1', name: 'a', input: { path: 'x.py' } },
        { kind: 'toolCall', callId: 'call_2', name: 'b', input: { path: 'y.py' } },
      ]);
    },
  );
});
