/** The user's pause of wakes is kept in the store, so it survives reloads and crashes. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readWakesPaused, WAKE_PAUSE_FILE, writeWakesPaused } from '../../src/node/wakePause';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-wakepause-');

describe('wake pause in the store', () => {
  it('is unknown until set, then reads back as written, both ways', async () => {
    const dir = dirs.freshDir();
    assert.equal(readWakesPaused(dir), undefined);
    await writeWakesPaused(dir, true);
    assert.equal(readWakesPaused(dir), true);
    await writeWakesPaused(dir, false);
    assert.equal(readWakesPaused(dir), false);
  });

  it('a damaged file counts as unknown (the caller falls back), never as an error', () => {
    const dir = dirs.freshDir();
    fs.writeFileSync(path.join(dir, WAKE_PAUSE_FILE), '{"paused": tr');
    assert.equal(readWakesPaused(dir), undefined);
    fs.writeFileSync(path.join(dir, WAKE_PAUSE_FILE), '{"paused": "yes"}');
    assert.equal(readWakesPaused(dir), undefined);
  });
});
