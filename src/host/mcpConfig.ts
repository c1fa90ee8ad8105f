import * as vscode from 'vscode';
import { contrib } from './contrib';
import { mcpClientConfigs, mcpConfigText, type McpClientKind } from '../core/mcpConfig';
import { COMMANDS } from '../shared/commands';

type Choice = McpClientKind | 'all';
const CHOICES: readonly Choice[] = ['vscode', 'claude', 'codex', 'all'];

/** What one choice copies: a client's file, or every client's lines. */
function configFor(storeDir: string, choice: Choice): { text: string; what: string; language: string } {
  const one = mcpClientConfigs(storeDir).find((c) => c.kind === choice);
  if (!one) return { text: mcpConfigText(storeDir), what: 'the MCP server config for VS Code, Claude Code, Codex CLI, Gemini CLI and Cursor', language: 'markdown' };
  return { text: one.text, what: `${one.label}'s MCP server config (for ${one.file})`, language: one.kind === 'codex' ? 'toml' : 'json' };
}

/**
 * `Life Thread: Copy MCP Server Config`: VS Code's `.vscode/mcp.json`, Claude Code's `.mcp.json`, Codex's
 * `config.toml` or every client's lines (src/core/mcpConfig.ts), with this store. A caller may name the
 * choice (`vscode` | `claude` | `codex` | `all`); from the palette it is picked.
 */
export function registerCopyMcpConfig(context: vscode.ExtensionContext, storeDir: string): void {
  context.subscriptions.push(
    contrib.registerCommand(COMMANDS.copyMcpConfig, async (given?: unknown) => {
      let choice = CHOICES.find((c) => c === given);
      if (choice === undefined) {
        const items = mcpClientConfigs(storeDir).map((c) => ({ label: c.label, description: c.file, choice: c.kind as Choice }));
        const picked = await vscode.window.showQuickPick([...items, { label: 'Every client', description: 'VS Code, Claude Code, Codex CLI, Gemini CLI, Cursor', choice: 'all' as Choice }], {
          title: 'Copy MCP Server Config',
          placeHolder: 'The MCP client to configure',
        });
        if (!picked) return undefined;
        choice = picked.choice;
      }
      const { text, what, language } = configFor(storeDir, choice);
      await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage(`Life Thread: ${what} is on the clipboard.`, 'Show').then((pick) => {
        if (pick) void vscode.workspace.openTextDocument({ language, content: text }).then((doc) => vscode.window.showTextDocument(doc));
      });
      return text;
    }),
  );
}
