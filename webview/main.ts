// The Life Thread webview: renders the state the host pushes and sends requests back. Imports only src/shared.
import { hostMessageSchema, type RowView, type ViewState, type WebviewRequest, type FeedItem } from '../src/shared/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
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

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function icon(name: string): HTMLElement {
  const i = el('i', `codicon codicon-${name}`);
  i.setAttribute('aria-hidden', 'true');
  return i;
}

function iconButton(name: string, label: string, onClick: (b: HTMLButtonElement) => void): HTMLButtonElement {
  const b = el('button', 'icon-button');
  b.type = 'button';
  b.title = label;
  b.setAttribute('aria-label', label);
  b.append(icon(name));
  b.addEventListener('click', () => onClick(b));
  return b;
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
  if (row.kind !== 'wake') {
    actions.append(iconButton('play', `Run ${row.id} now`, (b) => request('runNow', { id: row.id }, b)));
    actions.append(iconButton('clock', `Move ${row.id}`, (b) => request('move', { id: row.id }, b)));
  }
  if (row.hasLog) actions.append(iconButton('output', `Show log of ${row.id}`, (b) => request('showLog', { id: row.id }, b)));
  actions.append(iconButton('trash', `Remove ${row.id}`, (b) => request('remove', { id: row.id }, b)));
  li.append(main, actions);
  return li;
}

function renderSection(title: string, rows: RowView[], empty: () => HTMLElement): HTMLElement {
  const section = el('section', 'section');
  const h = el('h2', 'section-title', title);
  section.append(h);
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
  section.append(el('h2', 'section-title', 'Feed'));
  const ul = el('ul', 'rows');
  for (const item of feed) {
    const li = el('li', `feed-item tone-${item.tone}`);
    li.append(el('div', 'row-title', item.title), el('div', 'feed-body', item.body), el('div', 'row-when', item.at));
    ul.append(li);
  }
  section.append(ul);
  return section;
}

function renderPartition(p: NonNullable<ViewState['partition']>): HTMLElement {
  const section = el('section', 'section partition');
  section.append(el('h2', 'section-title', `Partition ${p.partition} of topic ${p.topic}: review TopicDecisions`));
  if (p.problems.length) {
    const box = el('div', 'store-error');
    box.setAttribute('role', 'alert');
    box.append(icon('error'), el('span', undefined, `Not ready to approve: ${p.problems.join('; ')}`));
    section.append(box);
  }
  section.append(el('h3', 'slot', 'Frame'), el('p', 'slot-text', p.frame));
  const items = (title: string, list: typeof p.accepted) => {
    section.append(el('h3', 'slot', title));
    const ul = el('ul', 'items');
    for (const i of list) {
      const li = el('li', 'item');
      li.append(el('span', 'item-text', i.text), el('span', 'hint', ` — ${i.reason}${i.carried ? ' (carried forward)' : ''}`));
      for (const a of i.anchors) {
        const link = el('a', 'anchor-link', `“${a.quote.length > 60 ? `${a.quote.slice(0, 59)}…` : a.quote}”`);
        link.href = '#';
        link.title = `${a.msgId} ${a.start}-${a.end}`;
        link.addEventListener('click', (e) => {
          e.preventDefault();
          request('openAnchor', a);
        });
        li.append(document.createTextNode(' '), link);
      }
      ul.append(li);
    }
    if (!list.length) ul.append(el('li', 'hint', 'none'));
    section.append(ul);
  };
  items('Rejected', p.rejected);
  items('Accepted', p.accepted);
  if (p.new.length) {
    section.append(el('h3', 'slot', 'New'));
    const ul = el('ul', 'items');
    for (const n of p.new) ul.append(el('li', 'item', n));
    section.append(ul);
  }
  section.append(el('h3', 'slot', 'Next'));
  const next = el('ol', 'items');
  for (const n of p.next) next.append(el('li', 'item', n));
  section.append(next);
  if (p.diff.length) {
    section.append(el('h3', 'slot', 'Changes since the previous partition'));
    section.append(el('pre', 'diff', p.diff.join('\n')));
  }
  const actions = el('div', 'actions');
  const approve = textButton('Approve and open the new chat', 'check', (b) => request('approvePartition', { topic: p.topic }, b));
  approve.disabled = p.problems.length > 0;
  actions.append(approve, textButton('Edit', 'edit', (b) => request('editPartition', { topic: p.topic }, b), true));
  section.append(actions);
  return section;
}

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
  if (state.partition) root.append(renderPartition(state.partition));
  root.append(renderDesk(state));
  if (state.focus) {
    const f = state.focus;
    const section = el('section', 'section focus');
    section.append(el('h2', 'section-title', f.title));
    const quote = el('blockquote', 'focus-text');
    const mark = el('mark', 'focus-span', f.span);
    quote.append(document.createTextNode(f.before), mark, document.createTextNode(f.after));
    section.append(quote, el('div', 'row-when', f.source));
    if (f.note) section.append(el('div', 'hint', f.note));
    root.append(section);
  }
  if (state.wakes.length) root.append(renderSection('Pending wakes', state.wakes, () => el('div')));
  if (state.feed.length) root.append(renderFeed(state.feed));
  const footer = el('div', 'footer', `Times in ${state.tz}`);
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
