/**
 * `/wake` with explicit words, read without a model: the forms a person types
 * when they know what should wake them. Anything else returns null, and `@life` says which forms it
 * reads. Pure.
 */
import type { WakeInput } from './contract';
import { parseWhen } from '../time/when';

export const WAKE_WORD_FORMS = [
  '`/wake in 20 minutes: check the deploy`',
  '`/wake tomorrow at 9 — read the nightly report`',
  '`/wake when "npm: test" ends: look at the failures` (a task name, `terminal:<name>` or a `c-…` row)',
  '`/wake when I am back: continue the refactor`',
  '`/wake when the repository changes: review the diff`',
];

/** Where the "when" ends and the wake's text begins: `:`, a dash, or "to". */
const SEPARATOR = /\s*(?::|\s—\s|\s–\s|\s--?\s|\sto\s)\s*/;

function splitText(rest: string): string {
  return rest.replace(/^[\s:,.—–-]+/, '').trim();
}

/** The wake input the words ask for, or null when they are not one of the explicit forms. */
export function readWakeWords(prompt: string, tz: string, now: Date): WakeInput | null {
  const p = prompt.trim().replace(/\s+/g, ' ');
  if (!p) return null;
  const job = /^when\s+(?:the\s+)?(?:task\s+|job\s+)?(?:"([^"]+)"|'([^']+)'|(\S+))\s+(?:ends|finishes|is done|completes|exits)\b(.*)$/i.exec(p);
  if (job) {
    const id = (job[1] ?? job[2] ?? job[3] ?? '').trim();
    const text = splitText(job[4] ?? '');
    return { when: 'job.done', job_id: id, text: text || `${id} ended: look at the result and continue.` };
  }
  const back = /^when\s+(?:I\s+am|I'm|I\u2019m)\s+back\b(.*)$|^when\s+I\s+(?:return|come back)\b(.*)$/i.exec(p);
  if (back) return { when: 'presence.online', text: splitText(back[1] ?? back[2] ?? '') || 'You are back: continue where we left off.' };
  const scm = /^when\s+the\s+(?:repo|repository|git repository)\s+changes\b(.*)$/i.exec(p);
  if (scm) return { when: 'scm.changed', text: splitText(scm[1] ?? '') || 'The repository changed: look at what changed.' };
  // A timer: the words before the first separator (or all of them) must read as one instant.
  const cut = SEPARATOR.exec(p);
  const candidates: [string, string][] = cut ? [[p.slice(0, cut.index), p.slice(cut.index + cut[0].length)]] : [];
  candidates.push([p, '']);
  for (const [at, text] of candidates) {
    try {
      const parsed = parseWhen({ when: at, tz, kind: 'reminder', now });
      if (parsed.schedule.kind !== 'once') continue;
      return { when: 'timer', at, text: text.trim() || `Timer (${at}): continue.` };
    } catch {
      // not an instant: try the next reading
    }
  }
  return null;
}
