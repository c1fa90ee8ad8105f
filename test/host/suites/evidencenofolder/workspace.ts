/** The window of this suite (test/runner/host.ts workspaceFileOf): a workspace with no folder at all. */
export function folders(): { path: string }[] {
  return [];
}
