/**
 * Which calls of `lifethread_sendToLifeThread` come from `@life`'s own tool loop. VS Code hands a tool
 * nothing that names the participant whose request called it (the invocation token holds only the chat
 * session, which `@life` and Agent mode share), so `@life` marks its own calls: the input it passes to
 * `lm.invokeTool` carries a one-time key that only this extension host knows, and the tool takes it
 * off before reading the input. A chat request's call without a live key — Agent mode's, another
 * participant's, or a model that copied a key it saw — counts as `agent`; a call outside any chat
 * request (no invocation token: an extension or a test calling the tool itself) as `life`, like the palette.
 */
import type { WakeSender } from '../../core/wake/sender';
import { randomBase36 } from '../ids';

/** The input field that carries the key; never part of the tool's contract. */
export const LIFE_CALL_KEY = 'lifethread_call';

const live = new Set<string>();

/** `input` as `@life` passes it, and the key's release once the call ended (whether or not the tool ran). */
export function markLifeCall(input: unknown): { input: Record<string, unknown>; done(): void } {
  const key = `life-${randomBase36(24)}`;
  live.add(key);
  const base = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  return { input: { ...base, [LIFE_CALL_KEY]: key }, done: () => live.delete(key) };
}

/** The input without the key, and whether it was a live key of `@life`'s (each key counts once). */
export function takeLifeCall(input: unknown): { input: unknown; life: boolean } {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !Object.hasOwn(input, LIFE_CALL_KEY)) return { input, life: false };
  const { [LIFE_CALL_KEY]: key, ...rest } = input as Record<string, unknown>;
  const life = typeof key === 'string' && live.delete(key);
  return { input: rest, life };
}

/** Who called the wake tool, from its input and whether the call came with a chat request's invocation token. */
export function senderOfToolCall(input: unknown, inChatRequest: boolean): { input: unknown; sender: WakeSender } {
  const call = takeLifeCall(input);
  return { input: call.input, sender: { kind: call.life || !inChatRequest ? 'life' : 'agent' } };
}
