// The one settings map (src/core/settings.ts) against package.json's contributes.configuration: the
// same names, types, defaults and bounds both ways, and how a value the user got wrong is read.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readSetting, SETTINGS, SETTINGS_SECTION, type SettingName } from '../../src/core/settings';
import { REPO } from './helpers/cliHarness';

interface Declared {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
}

function declared(): Map<string, Declared> {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Declared> } | { properties: Record<string, Declared> }[] } };
  const blocks = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
  const out = new Map<string, Declared>();
  for (const b of blocks) for (const [k, v] of Object.entries(b.properties)) out.set(k, v);
  return out;
}

const names = Object.keys(SETTINGS) as SettingName[];

describe('settings: one map, checked against package.json', () => {
  it('names the same settings as package.json, both ways', () => {
    const fromPackage = [...declared().keys()].filter((k) => k.startsWith(`${SETTINGS_SECTION}.`)).sort();
    assert.deepEqual(names.map((n) => `${SETTINGS_SECTION}.${n}`).sort(), fromPackage);
  });

  it('has the type, default, bounds and choices package.json declares', () => {
    const d = declared();
    for (const name of names) {
      const spec = SETTINGS[name];
      const p = d.get(`${SETTINGS_SECTION}.${name}`);
      assert.ok(p, name);
      assert.equal(spec.type, p.type, `${name}: type`);
      assert.deepEqual(spec.default, p.default, `${name}: default`);
      assert.equal('minimum' in spec ? spec.minimum : undefined, p.minimum, `${name}: minimum`);
      assert.equal('maximum' in spec ? spec.maximum : undefined, p.maximum, `${name}: maximum`);
      assert.deepEqual('enum' in spec ? spec.enum : undefined, p.enum, `${name}: enum`);
    }
  });

  it('reads an unset setting as its default, for every setting', () => {
    for (const name of names) assert.deepEqual(readSetting(name, undefined), SETTINGS[name].default, name);
  });

  it('reads a value of the wrong type as the default', () => {
    assert.equal(readSetting('wake.maxPerHour', '30'), 12);
    assert.equal(readSetting('cdp.allowRemote', 'yes'), false);
    assert.equal(readSetting('continuity.folder', 7), '.life-thread');
    assert.deepEqual(readSetting('cdp.chromiumArgs', '--headless'), []);
    assert.equal(readSetting('wake.awayMinutes', Number.NaN), 15);
  });

  it('keeps numbers in their range and integers whole', () => {
    assert.equal(readSetting('wake.pulseMaxChars', 50), 200);
    assert.equal(readSetting('wake.pulseMaxChars', 99_999), 4000);
    assert.equal(readSetting('catchUp.reminderMaxLatenessHours', -3), 0);
    assert.equal(readSetting('catchUp.commandMaxLatenessHours', 2.5), 2.5);
    assert.equal(readSetting('wake.maxPerHour', 3.6), 4);
    assert.equal(readSetting('continuity.pressurePercent', 150), 100);
  });

  it('takes only a listed choice and only the strings of a list', () => {
    assert.equal(readSetting('wake.target', 'agent'), 'agent');
    assert.equal(readSetting('wake.target', 'life'), 'life');
    assert.equal(readSetting('wake.target', 'copilot'), 'auto', 'an unknown target reads as the default: back to the sender');
    assert.equal(readSetting('wake.target', undefined), 'auto');
    assert.deepEqual(readSetting('cdp.chromiumArgs', ['--a', 3, '--b']), ['--a', '--b']);
  });
});
