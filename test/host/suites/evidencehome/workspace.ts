/**
 * The window of this suite (test/runner/host.ts workspaceFileOf): a virtual folder first, then the
 * fixture folder on disk. The virtual folder's path lies in the suite's state folder, so a window that
 * took it for a disk path would make its evidence folder there, where the test looks for it.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The scheme of the first folder: no file system serves it, as none serves a remote or virtual one in this window. */
export const VIRTUAL_SCHEME = 'lt-virtual';


export function folders(fixture: string, stateDir: string): ({ path: string; name?: string } | { uri: string; name?: string })[] {
  const virtual = pathToFileURL(join(stateDir, 'virtual-folder')).href.replace(/^file:/, `${VIRTUAL_SCHEME}:`);
  return [{ uri: virtual, name: 'virtual' }, { path: fixture, name: 'workspace' }];
}
