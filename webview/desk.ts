// The desk view: draws the desk page's frames the host pushes, its title and URL, the desk's pages, and
// asks the host for Reload / Bring to front / Open in a browser. Imports only src/shared.
import { deskHostMessageSchema, type DeskInfo, type DeskViewMessage } from '../src/shared/deskProtocol';
import { el, icon, iconButton, vsCodeApi } from './dom';

const vscode = vsCodeApi();
const root = document.getElementById('root');

function send(message: DeskViewMessage): void {
  vscode.postMessage(message);
}

// The layout is built once; info and frames update it in place (a frame must not rebuild the page list).
const head = el('header', 'desk-head');
const titleLine = el('div', 'desk-title');
const urlLine = el('div', 'desk-url mono');
const stateLine = el('div', 'desk-state');
stateLine.setAttribute('role', 'status');
const toolbar = el('div', 'desk-toolbar');
toolbar.setAttribute('role', 'toolbar');
const reload = iconButton('refresh', 'Reload', () => send({ type: 'reload' }));
const front = iconButton('arrow-up', 'Bring to front', () => send({ type: 'bringToFront' }));
const external = iconButton('link-external', 'Open in a browser', () => send({ type: 'openExternal' }));
toolbar.append(reload, front, external);
const heading = el('div', 'desk-heading');
heading.append(titleLine, urlLine);
head.append(heading, toolbar);
const body = el('div', 'desk-body');
const pagesNav = el('nav', 'desk-pages');
pagesNav.setAttribute('aria-label', 'Desk pages');
const screen = el('div', 'desk-screen');
const image = el('img', 'desk-frame');
image.alt = 'The desk page';
image.hidden = true;
screen.append(image);
body.append(screen, pagesNav);
root?.replaceChildren(head, stateLine, body);

let pendingSeq = -1;
image.addEventListener('load', () => {
  if (pendingSeq >= 0) send({ type: 'drawn', seq: pendingSeq });
});

const STATE_ICONS: Record<DeskInfo['state'], string> = { live: 'circle-filled', paused: 'debug-pause', connecting: 'loading', error: 'warning' };

function renderInfo(info: DeskInfo): void {
  titleLine.textContent = info.title || (info.state === 'error' ? 'The desk' : 'Connecting…');
  urlLine.textContent = info.url;
  urlLine.title = info.url;
  image.alt = info.title ? `The desk page: ${info.title}` : 'The desk page';
  stateLine.className = `desk-state desk-state-${info.state}`;
  const spin = info.state === 'connecting' ? ' codicon-modifier-spin' : '';
  const i = icon(STATE_ICONS[info.state]);
  i.className += spin;
  const words = info.state === 'live' ? 'Live' : info.state === 'paused' ? 'Paused' : info.state === 'connecting' ? 'Connecting' : 'Not shown';
  stateLine.replaceChildren(i, el('span', undefined, info.message ? `${words} · ${info.message}` : words));
  const attached = info.state === 'live' || info.state === 'paused';
  reload.disabled = !attached;
  front.disabled = !attached;
  external.hidden = !info.canOpenExternal;
  external.disabled = !info.url;
  const list = el('ul', 'desk-page-list');
  for (const p of info.pages) {
    const li = el('li');
    const b = el('button', p.shown ? 'desk-page shown' : 'desk-page');
    b.type = 'button';
    b.title = p.url;
    if (p.shown) b.setAttribute('aria-current', 'page');
    b.append(icon(p.url.startsWith('file:') ? 'file' : 'globe'), el('span', 'desk-page-title', p.title || p.key));
    b.addEventListener('click', () => send({ type: 'showPage', key: p.key }));
    li.append(b);
    list.append(li);
  }
  pagesNav.replaceChildren(el('div', 'section-title', 'Pages'), info.pages.length ? list : el('p', 'hint', 'No pages remembered.'));
  const shown = info.pages.find((p) => p.shown);
  if (shown) vscode.setState({ key: shown.key });
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = deskHostMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const msg = parsed.data;
  if (msg.type === 'info') renderInfo(msg.info);
  else {
    pendingSeq = msg.seq;
    image.src = `data:image/jpeg;base64,${msg.data}`;
    image.hidden = false;
  }
});

const rect = screen.getBoundingClientRect();
send({ type: 'ready', width: Math.max(1, Math.round(rect.width || window.innerWidth)), height: Math.max(1, Math.round(window.innerHeight)) });
