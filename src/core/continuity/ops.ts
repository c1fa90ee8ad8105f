/** Handover ops made from facts, with their expiry, and what a re-check of them found. */
import { DECISIONS_FILE, type HandoverOps, type RepoState } from './documents';

export interface OpsInput {
  topic: string;
  partition: number;
  now: Date;
  /** Time to live (lifeThread.continuity.opsTtlHours; default 12). */
  ttlHours?: number;
  repo: RepoState | null;
  openEditors?: string[];
  runningTasks?: string[];
  openItems?: string[];
  firstMoves?: string[];
  decisionsLink?: string;
}

/** Handover ops with createdAt = now and expiresAt = now + ttl. */
export function makeOps(input: OpsInput): HandoverOps {
  const ttl = input.ttlHours ?? 12;
  return {
    schemaVersion: 1,
    topic: input.topic,
    partition: input.partition,
    createdAt: input.now.toISOString(),
    expiresAt: new Date(input.now.getTime() + ttl * 3_600_000).toISOString(),
    decisionsLink: input.decisionsLink ?? DECISIONS_FILE,
    repo: input.repo ? { ...input.repo, dirty: [...input.repo.dirty].sort() } : null,
    openEditors: input.openEditors ?? [],
    runningTasks: input.runningTasks ?? [],
    openItems: input.openItems ?? [],
    firstMoves: input.firstMoves ?? [],
  };
}

export interface OpsStaleness {
  stale: boolean;
  changes: string[];
}
