import { diskFolders } from './diskFolders';
import type { PulseFolder } from '../core/wake/pulsePaths';

/**
 * The window's folders on disk, which the pulse names paths relative to (src/core/wake/pulsePaths.ts).
 * A virtual folder (`vscode-vfs:`, …) has no path a file link could point into, so it is left out.
 */
export function pulseFolders(): PulseFolder[] {
  return diskFolders().map((f) => ({ name: f.name, path: f.uri.fsPath }));
}
