/**
 * A wake's pulse outside a window (`life-thread wait`, the MCP server): a code-anchor landing is
 * re-found in the file as it is now, so the pulse names the ladder step and the range now,
 * as a window's pulse does. There is no document symbol provider here: the symbol step is skipped,
 * so the steps are exact → excerpt → orphaned. An unreadable file leaves the landing as set.
 */
import { readFileSync } from 'node:fs';
import { prepareText } from '../core/anchor/text';
import { resolveAnchorIn } from '../core/anchor/code';
import { pulseEventOfRow, type PulseEvent } from '../core/wake/pulse';
import type { WakeRow } from '../core/wake/row';

export function pulseEventOutside(row: WakeRow): PulseEvent {
  const event = pulseEventOfRow(row);
  const landing = event.landing;
  if (landing?.kind !== 'code_anchor') return event;
  let text: string;
  try {
    text = readFileSync(landing.anchor.path, 'utf8');
  } catch {
    return event;
  }
  const res = resolveAnchorIn(prepareText(text), landing.anchor);
  return { ...event, landing: { ...landing, anchor: res.healed }, landingStep: res.step };
}
