// What both webviews (the sidebar, webview/main.ts, and the desk view, webview/desk.ts) build their
// pages from: the VS Code webview API and the few element makers they share.

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The webview's API; VS Code lets a page acquire it once, so each bundle calls this once. */
export function vsCodeApi(): VsCodeApi {
  return acquireVsCodeApi();
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function icon(name: string): HTMLElement {
  const i = el('i', `codicon codicon-${name}`);
  i.setAttribute('aria-hidden', 'true');
  return i;
}

export function iconButton(name: string, label: string, onClick: (b: HTMLButtonElement) => void): HTMLButtonElement {
  const b = el('button', 'icon-button');
  b.type = 'button';
  b.title = label;
  b.setAttribute('aria-label', label);
  b.append(icon(name));
  b.addEventListener('click', () => onClick(b));
  return b;
}
