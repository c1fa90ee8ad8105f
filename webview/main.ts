// The Life Thread webview: renders the state the host pushes and sends requests back. Imports only src/shared.
import { hostMessageSchema, type AnchorView, type DecisionsView, type FeedItem, type OpsView, type RowView, type TopicView, type ViewState, type WebviewRequest } from '../src/shared/protocol';
import { el, icon, iconButton, vsCodeApi } from './dom';

const vscode = vsCodeApi();
const root = document.getElementById('root');
let nextRequestId = 1;
const pending = new Map<number, HTMLButtonElement>();

type Params<M extends WebviewRequest['method']> = Extract<WebviewRequest, { method: M }>['params'];
function request<M extends WebviewRequest['method']>(method: M, params: Params<M>, button?: HTMLButtonElement): void {
  const id = nextRequestId++;
  if (button) {
    button.disabled = true;
    pending.set(id, button);
  }
  vscode.postMessage({ type: 'request', id, method, params });
}

function textButton(label: string, iconName: string, onClick: (b: HTMLButtonElement) => void, secondary = false): HTMLButtonElement {
  const b = el('button', secondary ? 'text-button secondary' : 'text-button');
  b.type = 'button';
  b.append(icon(iconName), el('span', undefined, label));
  b.addEventListener('click', () => onClick(b));
  return b;
}

function renderHealth(state: ViewState): HTMLElement {
  const line = el('div', `health health-${state.health.state}`);
  line.setAttribute('role', 'status');
  const iconName = state.health.state === 'healthy' ? 'pulse' : state.health.state === 'paused' ? 'debug-pause' : state.health.state === 'starting' ? 'loading' : 'warning';
  line.append(icon(iconName), el('span', 'health-text', state.health.line));
  return line;
}

function renderRow(row: RowView): HTMLElement {
  const li = el('li', 'row');
  li.dataset.id = row.id;
  const main = el('div', 'row-main');
  main.append(el('div', 'row-title', row.title), el('div', 'row-when', row.when));
  if (row.lastFact) {
    const fact = el('div', `row-fact tone-${row.factTone}`, row.lastFact);
    main.append(fact);
  }
  const actions = el('div', 'row-actions');
  const label = `\u201c${row.title.length > 40 ? `${row.title.slice(0, 39)}\u2026` : row.title}\u201d (${row.id})`;
  // A row that has fired for good (a one-shot fired, or missed) cannot run or move again.
  const live = row.status === 'pending' || row.status === 'running';
  if (row.kind !== 'wake' && live) {
    actions.append(iconButton('play', `Run ${label} now`, (b) => request('runNow', { id: row.id }, b)));
    actions.append(iconButton('clock', `Move ${label}`, (b) => request('move', { id: row.id }, b)));
  }
  if (row.hasLog) actions.append(iconButton('output', `Show log of ${label}`, (b) => request('showLog', { id: row.id }, b)));
  actions.append(iconButton('trash', `Remove ${label}`, (b) => request('remove', { id: row.id }, b)));
  li.append(main, actions);
  return li;
}

function sectionHead(title: string, action?: HTMLButtonElement): HTMLElement {
  const head = el('div', 'section-head');
  head.append(el('h2', 'section-title', title));
  if (action) head.append(action);
  return head;
}

function renderSection(title: string, rows: RowView[], empty: () => HTMLElement): HTMLElement {
  const section = el('section', 'section');
  const fired = rows.filter((r) => r.kind !== 'wake' && r.status !== 'pending' && r.status !== 'running').length;
  section.append(sectionHead(title, fired > 0 ? iconButton('clear-all', `Clear ${fired} fired row${fired === 1 ? '' : 's'}`, (b) => request('clearFired', {}, b)) : undefined));
  if (rows.length === 0) {
    section.append(empty());
  } else {
    const ul = el('ul', 'rows');
    for (const r of rows) ul.append(renderRow(r));
    section.append(ul);
  }
  return section;
}

function renderFeed(feed: FeedItem[]): HTMLElement {
  const section = el('section', 'section feed');
  section.append(sectionHead('Feed', iconButton('clear-all', 'Clear the feed', (b) => request('clearFeed', {}, b))));
  const ul = el('ul', 'rows');
  for (const item of feed) {
    const li = el('li', `feed-item tone-${item.tone}`);
    li.append(el('div', 'row-title', item.title), el('div', 'feed-body', item.body), el('div', 'row-when', item.at));
    ul.append(li);
  }
  section.append(ul);
  return section;
}

function anchorLink(a: AnchorView): HTMLAnchorElement {
  const link = el('a', 'anchor-link', `“${a.quote.length > 60 ? `${a.quote.slice(0, 59)}…` : a.quote}”`);
  link.href = '#';
  link.title = `Show ${a.msgId} ${a.start}-${a.end} in the export`;
  link.dataset.msg = a.msgId;
  link.addEventListener('click', (e) => {
    e.preventDefault();
    request('openAnchor', a);
  });
  return link;
}

function list(items: readonly string[], none: string, ordered = false, code = false): HTMLElement {
  const ul = el(ordered ? 'ol' : 'ul', 'items');
  for (const i of items) ul.append(code ? el('li', 'item mono', i) : el('li', 'item', i));
  if (!items.length) ul.append(el('li', 'hint none', none));
  return ul;
}

function renderDecisions(d: DecisionsView, heading: string): HTMLElement {
  const box = el('div', 'pair-half decisions');
  box.append(el('h3', 'pair-title', heading), el('div', 'row-when', `written ${d.written}`));
  box.append(el('h4', 'slot', 'Frame'), el('p', 'slot-text', d.frame));
  const items = (title: string, entries: DecisionsView['accepted']) => {
    box.append(el('h4', 'slot', title));
    const ul = el('ul', 'items');
    for (const i of entries) {
      const li = el('li', 'item');
      li.append(el('span', 'item-text', i.text), el('span', 'hint', ` — ${i.reason}${i.carried ? ' (carried forward)' : ''}`));
      for (const a of i.anchors) li.append(document.createTextNode(' '), anchorLink(a));
      ul.append(li);
    }
    if (!entries.length) ul.append(el('li', 'hint none', 'none'));
    box.append(ul);
  };
  items('Rejected', d.rejected);
  items('Accepted', d.accepted);
  box.append(el('h4', 'slot', 'New'), list(d.new, 'nothing new'));
  box.append(el('h4', 'slot', 'Next'), list(d.next, 'empty', true));
  if (d.anchors.length) {
    box.append(el('h4', 'slot', 'Anchors'));
    const p = el('p', 'slot-text');
    for (const a of d.anchors) p.append(anchorLink(a), document.createTextNode(' '));
    box.append(p);
  }
  return box;
}

function renderOps(o: OpsView, topic: string): HTMLElement {
  const box = el('div', 'pair-half ops');
  box.append(el('h3', 'pair-title', `Handover ops · partition ${o.partition}`));
  const state = el('div', o.stale ? 'ops-state stale' : 'ops-state');
  state.setAttribute('role', 'status');
  if (o.stale === null) state.append(icon('circle-outline'), el('span', undefined, 'not re-checked yet'));
  else if (o.stale) state.append(icon('warning'), el('span', undefined, `stale: ${o.changes.join('; ')}`));
  else state.append(icon('pass'), el('span', undefined, `fresh (re-checked ${o.checked ?? ''})`));
  box.append(state);
  const facts = el('dl', 'facts');
  const fact = (k: string, v: string) => facts.append(el('dt', undefined, k), el('dd', 'mono', v));
  fact('Branch', o.root ? o.branch || '(detached HEAD)' : 'not in a git repository');
  if (o.root) fact('HEAD', o.head ? o.head.slice(0, 12) : '(no commits)');
  fact('Expires', o.expires);
  box.append(facts);
  box.append(el('h4', 'slot', `Dirty files (${o.dirty.length})`), list(o.dirty, 'none', false, true));
  box.append(el('h4', 'slot', 'Running tasks'), list(o.runningTasks, 'none'));
  box.append(el('h4', 'slot', 'Open items'), list(o.openItems, 'none'));
  box.append(el('h4', 'slot', 'First moves'), list(o.firstMoves, 'none', true));
  const actions = el('div', 'actions');
  actions.append(textButton('Re-check', 'refresh', (b) => request('recheckOps', { topic }, b), true));
  box.append(actions);
  return box;
}

function renderTopic(t: TopicView, focus: ViewState['focus']): HTMLElement {
  const section = el('section', 'section topic');
  const head = el('div', 'topic-head');
  // Names and ids keep their case: only fixed labels are set in capitals.
  head.append(el('h2', 'section-title keep-case', `Topic ${t.topic}${t.partition !== null ? ` · partition ${t.partition}` : ''}`));
  if (t.topics.length > 1) {
    const select = el('select', 'topic-select');
    select.setAttribute('aria-label', 'Topic');
    for (const name of t.topics) {
      const o = el('option', undefined, name);
      o.value = name;
      o.selected = name === t.topic;
      select.append(o);
    }
    select.addEventListener('change', () => request('showTopic', { topic: select.value }));
    head.append(select);
  }
  section.append(head);
  const verify = el('div', t.verify.ok ? 'verify ok' : 'verify broken');
  verify.setAttribute('role', t.verify.ok ? 'status' : 'alert');
  verify.append(icon(t.verify.ok ? 'verified' : 'error'), el('span', undefined, t.verify.line));
  section.append(verify);
  const fresh = t.newMessages ? `${t.newMessages} new message${t.newMessages === 1 ? '' : 's'} since the last export.` : '';
  if (t.note || fresh) section.append(el('div', 'hint note', [t.note, fresh].filter(Boolean).join(' ')));
  if (t.review) {
    const review = el('div', 'review');
    review.append(el('h3', 'pair-title', `Review: partition ${t.review.partition} — approve TopicDecisions before the new chat starts`));
    if (t.review.problems.length) {
      const box = el('div', 'store-error');
      box.setAttribute('role', 'alert');
      box.append(icon('error'), el('span', undefined, `Not ready to approve: ${t.review.problems.join('; ')}`));
      review.append(box);
    }
    if (t.review.diff.length) {
      review.append(el('h4', 'slot', t.decisions ? `Changes since partition ${t.decisions.partition}` : 'Changes'));
      review.append(el('pre', 'diff', t.review.diff.join('\n')));
    }
    const actions = el('div', 'actions');
    const approve = textButton('Approve and open the new chat', 'check', (b) => request('approvePartition', { topic: t.topic }, b));
    approve.disabled = t.review.problems.length > 0;
    actions.append(approve, textButton('Edit', 'edit', (b) => request('editPartition', { topic: t.topic }, b), true));
    review.append(actions);
    section.append(review);
  }
  const pair = el('div', 'pair');
  const shown = t.review ? t.review.decisions : t.decisions;
  if (shown) pair.append(renderDecisions(shown, t.review ? `TopicDecisions · draft of partition ${shown.partition}` : `TopicDecisions · partition ${shown.partition}`));
  else pair.append(el('div', 'pair-half hint', 'No TopicDecisions yet.'));
  if (t.ops) pair.append(renderOps(t.ops, t.topic));
  else pair.append(el('div', 'pair-half hint', 'No Handover ops yet.'));
  section.append(pair);
  if (focus) section.append(renderFocus(focus));
  if (t.history.length) {
    section.append(el('h3', 'pair-title', 'Earlier partitions'));
    const ul = el('ul', 'items history');
    for (const h of t.history) ul.append(el('li', 'item', `Partition ${h.partition} · ${h.written} · ${h.messages} message${h.messages === 1 ? '' : 's'} exported — ${h.frame}`));
    section.append(ul);
  }
  return section;
}

function renderFocus(f: NonNullable<ViewState['focus']>): HTMLElement {
  const section = el('div', 'focus');
  const head = el('div', 'section-head');
  head.append(el('h3', 'pair-title', f.title), iconButton('close', 'Close the quoted span', (b) => request('closeFocus', {}, b)));
  section.append(head);
  const quote = el('blockquote', 'focus-text');
  const mark = el('mark', 'focus-span', f.span);
  quote.append(document.createTextNode(f.before), mark, document.createTextNode(f.after));
  section.append(quote, el('div', 'row-when', f.source));
  if (f.note) section.append(el('div', 'hint', f.note));
  return section;
}

let lastFocus = '';

const DESK_ICONS: Record<NonNullable<ViewState['desk']['status']>, string> = { ok: 'pass', prepared: 'browser', needs_restore: 'warning', none: 'circle-slash' };

/** The desk's status line; in the panel also the last thumbnail of the page in front. */
function renderDesk(state: ViewState): HTMLElement {
  const d = state.desk;
  const section = el('section', 'section desk');
  section.append(el('h2', 'section-title', 'Desk'));
  const line = el('div', `desk-status desk-${d.status ?? 'unknown'}`);
  line.setAttribute('role', 'status');
  line.append(icon(d.status ? DESK_ICONS[d.status] : 'browser'), el('span', 'desk-line', d.line));
  section.append(line);
  if (d.thumbnail) {
    const img = el('img', 'desk-thumbnail');
    img.src = d.thumbnail;
    img.alt = d.front ? `The desk: ${d.front}` : 'The desk: the last page in front';
    section.append(img);
  }
  const actions = el('div', 'actions');
  actions.append(textButton('Open Desk', 'browser', (b) => request('openDesk', {}, b), state.surface === 'sidebar'));
  section.append(actions);
  return section;
}

const ZONE_SOURCE: Record<ViewState['tzSource'], string> = {
  setting: 'lifeThread.timeZone',
  ui: "your UI's zone",
  host: "the extension host's zone: no view has reported yours yet",
};

function render(state: ViewState): void {
  if (!root) return;
  root.replaceChildren();
  root.className = `surface-${state.surface}`;
  root.append(renderHealth(state));
  if (state.storeError) {
    const err = el('div', 'store-error');
    err.setAttribute('role', 'alert');
    err.append(icon('error'), el('span', undefined, state.storeError));
    root.append(err);
  }
  root.append(
    renderSection('Reminders', state.reminders, () => {
      const box = el('div', 'empty');
      box.append(el('p', undefined, 'No reminders yet'));
      box.append(el('p', 'hint', 'A reminder\u2019s text is a prompt the agent runs at the due time.'));
      box.append(textButton('Add reminder', 'add', () => request('addReminder', {})));
      return box;
    }),
  );
  root.append(
    renderSection('Scheduled commands', state.commands, () => {
      const box = el('div', 'empty');
      box.append(el('p', undefined, 'No scheduled commands'));
      box.append(textButton('Schedule command', 'terminal', () => request('scheduleCommand', {}), true));
      return box;
    }),
  );
  const topic = state.surface === 'panel' ? state.topic : null;
  if (topic) root.append(renderTopic(topic, state.focus));
  else if (state.focus) root.append(renderFocus(state.focus));
  const focusKey = state.focus ? `${state.focus.title}\u0000${state.focus.span}` : '';
  if (focusKey && focusKey !== lastFocus) root.querySelector('.focus-span')?.scrollIntoView({ block: 'center' });
  lastFocus = focusKey;
  root.append(renderDesk(state));
  if (state.wakes.length) root.append(renderSection('Pending wakes', state.wakes, () => el('div')));
  if (state.feed.length) root.append(renderFeed(state.feed));
  const footer = el('div', 'footer', `Times in ${state.tz} (${ZONE_SOURCE[state.tzSource]})`);
  root.append(footer);
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = hostMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const msg = parsed.data;
  if (msg.type === 'state') {
    vscode.setState(msg.state);
    render(msg.state);
  } else {
    const button = pending.get(msg.id);
    pending.delete(msg.id);
    if (button) button.disabled = false;
  }
});

vscode.postMessage({ type: 'ready' });

/** The UI's zone, told to the host whenever this view shows: the owner's zone when no setting names one. */
function reportZone(): void {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (typeof timeZone === 'string' && timeZone !== '') request('reportZone', { timeZone: timeZone.slice(0, 64) });
}
reportZone();
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') reportZone();
});
