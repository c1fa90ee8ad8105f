/**
 * The params of the requests this server answers, checked before the SDK sees them: the SDK would
 * answer a malformed request with -32603 (internal error) and a raw validator dump; JSON-RPC and MCP
 * ask for -32602 naming what is wrong. A method not listed here goes on to the SDK (which answers an
 * unknown method with -32601).
 */
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

interface Checkable {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

const SCHEMAS: Record<string, Checkable> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'resources/subscribe': SubscribeRequestSchema,
  'resources/unsubscribe': UnsubscribeRequestSchema,
  'logging/setLevel': SetLevelRequestSchema,
};

/** What is wrong with a request's params ("params.name: expected string"), or undefined when they fit. */
export function checkRequest(method: string, params: unknown): string | undefined {
  const schema = SCHEMAS[method];
  if (!schema) return undefined;
  const r = schema.safeParse(params === undefined ? { method } : { method, params });
  if (r.success) return undefined;
  const issue = r.error.issues[0];
  if (!issue) return `the params of ${method} do not fit it`;
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'params';
  return `${field}: ${issue.message.replace(/\s+/g, ' ').slice(0, 300)}`;
}
