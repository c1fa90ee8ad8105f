import { pickModel } from './agentTurn';
import { realModels } from './offlineModel';
import type { OpenAiCompatibleProvider } from './openaiProvider';
import { setting } from './settings';

/** Doctor: which models `@life` and reminder turns will use, and what to do when there is none. */
export async function modelsSection(provider: OpenAiCompatibleProvider): Promise<string> {
  const all = await realModels();
  const picked = await pickModel();
  const lines = [
    `- Models available: ${all.length ? all.map((m) => `\`${m.vendor}/${m.id}\``).join(', ') : '**none**'} (besides \`lifethread/offline\`, Life Thread\u2019s commands-only responder)`,
    `- Reminder turns use: ${picked.model ? `\`${picked.model.vendor}/${picked.model.id}\`${setting('model') ? ' (lifeThread.model)' : ' (first available)'}` : `**no model** — reminders are delivered as written (${picked.reason ?? ''})`}`,
    '- `@life` uses the model picked in the chat view.',
    `- OpenAI-compatible endpoint: ${provider.baseUrl ? `\`${provider.baseUrl}\`${setting('openai.model') ? `, model \`${setting('openai.model')}\`` : ''}` : 'not set'}${provider.lastError ? ` — last error: ${provider.lastError}` : ''}`,
  ];
  if (!all.length) {
    lines.push(
      '',
      'Without a language model VS Code refuses every chat request, so `@life` answers through Life Thread\u2019s offline responder: slash commands and wakes only. To talk with an agent, either install GitHub Copilot, or point Life Thread at an OpenAI-compatible server: set `lifeThread.openai.baseUrl` (e.g. `http://127.0.0.1:11434/v1` for Ollama) and `lifeThread.openai.model`, and run `Life Thread: Set API Key…` if the server needs a key.',
    );
  }
  return lines.join('\n');
}
