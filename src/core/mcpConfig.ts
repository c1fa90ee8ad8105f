/**
 * The lines that add `life-thread mcp` to the terminal agents' MCP clients (README "MCP and terminal
 * agents"; the palette's Copy MCP Server Config). The server is started through the shim kept in the
 * store (`<store>/bin/life-thread`: the CLI bundle copied into the store, on a system Node or VS Code's
 * runtime), and `--store` names the store, as the server has no default path.
 */
import { sh } from './shellQuote';

/** The one CLI entry of a store (src/node/shim.ts writes it): terminals, MCP configs and the OS timer run it by this path. */
export function shimPath(storeDir: string): string {
  return `${storeDir.replace(/\/+$/, '')}/bin/life-thread`;
}

/** A command line that runs the store's CLI by its absolute path, for answers a terminal agent copies (it may have no life-thread on its PATH). */
export function cliLine(storeDir: string, args: readonly string[]): string {
  return [shimPath(storeDir), ...args].map(sh).join(' ');
}

/** A TOML basic string (the same escapes as JSON for what a path holds). */
function toml(s: string): string {
  return JSON.stringify(s);
}

export interface McpServerCommand {
  command: string;
  args: string[];
}

export function mcpServerCommand(storeDir: string): McpServerCommand {
  return { command: shimPath(storeDir), args: ['mcp', '--store', storeDir] };
}

/** The clients "Copy MCP Server Config" offers a file for. */
export type McpClientKind = 'vscode' | 'claude' | 'codex';

export interface McpClientConfig {
  kind: McpClientKind;
  /** The client's name, as the palette shows it. */
  label: string;
  /** Where the text goes. */
  file: string;
  text: string;
}

/** Seconds Codex lets one tool call run: `lifethread_wait` holds its answer up to 50 s. */
const CODEX_TOOL_TIMEOUT_S = 70;

/** Codex's config.toml table: tools run without asking (`codex exec` refuses calls that would ask), except the schedule tool. */
function codexToml(storeDir: string): string {
  const { command, args } = mcpServerCommand(storeDir);
  return [
    '[mcp_servers.life-thread]',
    `command = ${toml(command)}`,
    `args = [${args.map(toml).join(', ')}]`,
    `tool_timeout_sec = ${CODEX_TOOL_TIMEOUT_S}`,
    'default_tools_approval_mode = "approve"',
    '',
    '# A command lifethread_schedule adds runs later outside Codex\'s sandbox, so each call asks you first. For the',
    '# same reason the store stays out of the sandbox\'s writable_roots: a store writable from the sandbox would let',
    '# sandboxed code schedule commands that run outside it. lifethread_wait needs no access to the store.',
    '[mcp_servers.life-thread.tools.lifethread_schedule]',
    'approval_mode = "prompt"',
    '',
  ].join('\n');
}

/** The server's entry for each client: VS Code's `.vscode/mcp.json`, Claude Code's `.mcp.json`, Codex's `config.toml`. */
export function mcpClientConfigs(storeDir: string): McpClientConfig[] {
  const { command, args } = mcpServerCommand(storeDir);
  const entry = { type: 'stdio', command, args };
  return [
    { kind: 'vscode', label: 'VS Code', file: '.vscode/mcp.json', text: `${JSON.stringify({ servers: { 'life-thread': entry } }, null, 2)}\n` },
    { kind: 'claude', label: 'Claude Code', file: '.mcp.json', text: `${JSON.stringify({ mcpServers: { 'life-thread': entry } }, null, 2)}\n` },
    { kind: 'codex', label: 'Codex CLI', file: '~/.codex/config.toml', text: codexToml(storeDir) },
  ];
}

/** One block per client: VS Code, Claude Code, Codex CLI, Gemini CLI, Cursor. */
export function mcpConfigText(storeDir: string): string {
  const { command, args } = mcpServerCommand(storeDir);
  const argv = [command, ...args].map(sh).join(' ');
  const [vscodeJson, claudeJson, codex] = mcpClientConfigs(storeDir);
  const json = JSON.stringify({ mcpServers: { 'life-thread': { command, args } } }, null, 2);
  return [
    '# Life Thread as an MCP server (life-thread mcp). The store is this VS Code profile’s.',
    '',
    `# VS Code (${vscodeJson?.file ?? ''}):`,
    vscodeJson?.text ?? '',
    `# Claude Code (${claudeJson?.file ?? ''} in the project), or run once (add --scope user to have it in every project):`,
    `#   claude mcp add life-thread -- ${argv}`,
    claudeJson?.text ?? '',
    '# Wakes come back into the session as channel events when Claude Code is started with:',
    '#   claude --dangerously-load-development-channels server:life-thread',
    '# and as the output of the background `wait` command each wake\'s answer names.',
    '',
    `# Codex CLI (${codex?.file ?? ''}); Codex is woken by calling lifethread_wait in its turn:`,
    codex?.text ?? '',
    '# Gemini CLI (~/.gemini/settings.json) and Cursor (~/.cursor/mcp.json or .cursor/mcp.json):',
    json,
    '',
    '# Without channels, be told when a wake fires by running in the background:',
    `#   ${cliLine(storeDir, ['wait', '<wake id>', '--store', storeDir, '--timeout', '<seconds>'])}`,
    '',
  ].join('\n');
}
