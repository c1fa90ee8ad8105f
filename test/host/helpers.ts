import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LandingRef } from '../../src/core/landing';
import { EXTENSION_ID } from '../../src/shared/commands';
import type { LifeThreadApi } from '../../src/host/extension';
import type { z } from 'zod';
import { RUNNER_MARKER, phaseInfoSchema, runnerRequestSchema, type PhaseInfo } from './runnerProtocol';

export async function lifeThread(): Promise<LifeThreadApi> {
  const ext = vscode.extensions.getExtension<LifeThreadApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not installed in this host`);
  const api = await ext.activate();
  await api.ready;
  return api;
}

export function phaseInfo(): PhaseInfo | undefined {
  const f = process.env.LIFE_THREAD_TEST_PHASE;
  return f && existsSync(f) ? phaseInfoSchema.parse(JSON.parse(readFileSync(f, 'utf8'))) : undefined;
}

/** True when a browser-owning runner can act for the test (code-server), false on desktop. */
export function hasBrowserRunner(): boolean {
  return phaseInfo()?.runner === 'code-server';
}

let seq = 0;
type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

/** Asks the runner to act in the browser (blur/focus the window, open a URL, screenshot) and waits for its ack. */
export async function runnerAction(req: WithoutSeq<z.input<typeof runnerRequestSchema>>, timeoutMs = 20_000): Promise<unknown> {
  const info = phaseInfo();
  if (!info) throw new Error('runner actions need the code-server runner (LIFE_THREAD_TEST_PHASE is unset)');
  const id = `${process.pid}-${Date.now()}-${seq++}`;
  console.log(`${RUNNER_MARKER}${JSON.stringify({ ...req, seq: id })}`);
  const ack = join(info.ackDir, `${id}.json`);
  return waitFor(() => (existsSync(ack) ? (JSON.parse(readFileSync(ack, 'utf8')) as unknown) : undefined), timeoutMs, `runner ack for ${req.action}`);
}

export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The `ref` of a `/land?ref=…` link (base64url of the LandingRef JSON), as a caller outside the extension writes it. */
export function encodeRef(ref: LandingRef): string {
  return Buffer.from(JSON.stringify(ref), 'utf8').toString('base64url');
}
