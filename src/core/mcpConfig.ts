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

/** One block per client: Claude Code, Codex CLI, Gemini CLI, Cursor. */
export function mcpConfigText(storeDir: string): string {
  const { command, args } = mcpServerCommand(storeDir);
  const argv = [command, ...args].map(sh).join(' ');
  const json = JSON.stringify({ mcpServers: { 'life-thread': { command, args } } }, null, 2);
  return [
    '# Life Thread as an MCP server (life-thread mcp). The store is this VS Code profile’s.',
    '',
    '# Claude Code (run once; add --scope user to have it in every project):',
    `claude mcp add life-thread -- ${argv}`,
    '# Wakes come back into the session as channel events when Claude Code is started with:',
    '#   claude --dangerously-load-development-channels server:life-thread',
    '',
    '# Codex CLI (~/.codex/config.toml):',
    '[mcp_servers.life-thread]',
    `command = ${toml(command)}`,
    `args = [${args.map(toml).join(', ')}]`,
    '',
    '# Gemini CLI (~/.gemini/settings.json) and Cursor (~/.cursor/mcp.json or .cursor/mcp.json):',
    json,
    '',
    '# Without channels, be told when a wake fires by running in the background:',
    `#   ${cliLine(storeDir, ['wait', '<wake id>', '--store', storeDir])}`,
    '',
  ].join('\n');
}
