/** `cdp://evidence/<id>` landings: the link the desk's pages are reached by, and what parseDeepLink refuses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { parseDeepLink } from '../../src/core/landing';
import { evidenceLink } from '../../src/core/anchor/links';

describe('cdp://evidence/<id> landings', () => {
  it('evidenceLink makes the link parseDeepLink reads back', () => {
    for (const id of ['job-k3j9x0d2', 'w-abc123', 'report.v2_final', '0']) {
      assert.deepEqual(parseDeepLink(evidenceLink(id), ['vscode']), { kind: 'cdp', evidenceId: id });
    }
  });

  it('an id such a link cannot carry is refused, naming the field', () => {
    for (const id of ['', '-x', 'a/b', 'a b', 'é', 'x'.repeat(101)]) {
      assert.throws(() => evidenceLink(id), (e: unknown) => e instanceof InputError && e.field === 'evidenceId', JSON.stringify(id));
    }
  });

  it('parseDeepLink refuses other cdp:// shapes with the expected form', () => {
    for (const uri of ['cdp://evidence/', 'cdp://evidence/a/b', 'cdp://other/x', 'cdp://evidence/%2e%2e', 'cdp://evidence/-x']) {
      assert.throws(() => parseDeepLink(uri, ['vscode']), /must be cdp:\/\/evidence\/<id>/, uri);
    }
    assert.deepEqual(parseDeepLink('cdp://evidence/job-1?x=1#top', ['vscode']), { kind: 'cdp', evidenceId: 'job-1' });
  });
});
