/**
 * What VS Code's uninstall hook does (./uninstall.ts, dist/uninstall.js): removes the OS timers of the
 * stores that the removed Life Thread used (README "Keep time while VS Code is closed"). The windows
 * recorded their stores under their extensions folder (src/node/service/storeRegistry.ts).
 */
import { uninstallTimer } from '../node/service/osTimer';
import { forgetStores, registryPath, storesOf } from '../node/service/storeRegistry';
import type { TimerSystem } from '../node/service/system';

/** Removes the timers of every store of the Life Thread in `extensionsDir`; one line per store. */
export async function removeTimersOf(extensionsDir: string, sys: TimerSystem, out: (line: string) => void): Promise<void> {
  const file = registryPath(sys.env, sys.home);
  const stores = await storesOf(file, extensionsDir);
  const done: string[] = [];
  for (const store of stores) {
    try {
      const removed = await uninstallTimer(store, sys);
      out(removed.length > 0 ? `life-thread: removed the ${removed.map((r) => r.kind).join(' and ')} timer of ${store}` : `life-thread: no OS timer for ${store}`);
      done.push(store);
    } catch (e) {
      out(`life-thread: could not remove the OS timer of ${store}: ${e instanceof Error ? e.message : String(e)}; run: life-thread service uninstall --store ${store}`);
    }
  }
  await forgetStores(file, done);
}

