import * as vscode from 'vscode';
import { contrib } from './contrib';
import { mcpConfigText } from '../core/mcpConfig';
import { COMMANDS } from '../shared/commands';

/** `Life Thread: Copy MCP Server Config`: the lines for Claude Code, Codex CLI, Gemini CLI and Cursor, with this store. */
export function registerCopyMcpConfig(context: vscode.ExtensionContext, storeDir: string): void {
  context.subscriptions.push(
    contrib.registerCommand(COMMANDS.copyMcpConfig, async () => {
      const text = mcpConfigText(storeDir);
      await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage('Life Thread: the MCP server config for Claude Code, Codex CLI, Gemini CLI and Cursor is on the clipboard.', 'Show').then((pick) => {
        if (pick) void vscode.workspace.openTextDocument({ language: 'markdown', content: text }).then((doc) => vscode.window.showTextDocument(doc));
      });
      return text;
    }),
  );
}
