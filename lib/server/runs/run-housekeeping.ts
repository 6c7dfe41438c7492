import "server-only";
import type { Db } from "@/db/client";
import {
  deleteRunData,
  findHousekeptRun,
  findRunDeletion,
  type HousekeptRun,
  type RunChangeActor,
  setRunArchived,
} from "@/db/repositories/run-housekeeping";
import { RuntimeError } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/request-identity";
import { hasRole } from "@/lib/wire/roles";

/**
 * Housekeeping refused for a reason a person can act on. A runtime error, so
 * the error table maps it by brand: the run service is shared by every
 * route's bundle, and a class from another bundle fails `instanceof`.
 */
export class RunHousekeepingError extends RuntimeError {
  static override readonly brand: string = "RunHousekeepingError";
  declare readonly code: "forbidden" | "not_found" | "run_active";
  constructor(code: "forbidden" | "not_found" | "run_active", message: string) {
    super(code, message);
  }
}

/** What an archive or unarchive answers: the run's archive state, and whether this request changed it. */
export interface ArchiveOutcome {
  runId: string;
  archived: boolean;
  archivedAt: string | null;
  changed: boolean;
}

/**
 * Archives (or unarchives) a run for the person asking: its starter or an
 * admin (docs/housekeeping.md). Archiving what is archived changes nothing and
 * says so (`changed: false`), with no second audit row.
 */
export async function archiveRun(
  db: Db,
  runId: string,
  archived: boolean,
  identity: Identity | null,
): Promise<ArchiveOutcome> {
  await requireHousekeeper(db, runId, identity, archived ? "archive" : "unarchive");
  const result = await setRunArchived(db, runId, archived, actorOf(identity));
  if (!result) throw await noSuchRun(db, runId);
  return {
    runId,
    archived: result.run.archivedAt !== null,
    archivedAt: result.run.archivedAt?.toISOString() ?? null,
    changed: result.changed,
  };
}

/**
 * Deletes a finished run's own data for its starter or an admin; the
 * approvals audit stays, and the deletion is recorded (docs/housekeeping.md).
 * A run still running or waiting is refused with 409 `run_active`.
 */
export async function deleteRun(
  db: Db,
  runId: string,
  identity: Identity | null,
): Promise<{ runId: string; deleted: true }> {
  await requireHousekeeper(db, runId, identity, "delete");
  const result = await deleteRunData(db, runId, actorOf(identity));
  if (!result) throw await noSuchRun(db, runId);
  if (result.outcome === "active") throw activeRunRefusal(result.run);
  return { runId, deleted: true };
}

/**
 * The run's starter or an admin may tidy it; anyone else is refused with 403
 * naming who may. No identity: the command line on the database, which has
 * no sign-in and can open the tables anyway.
 */
async function requireHousekeeper(
  db: Db,
  runId: string,
  identity: Identity | null,
  what: "archive" | "unarchive" | "delete",
): Promise<HousekeptRun> {
  const run = await findHousekeptRun(db, runId);
  if (!run) throw await noSuchRun(db, runId);
  if (identity === null || hasRole(identity.role, "admin")) return run;
  if (run.startedById !== null && run.startedById === identity.userId) return run;
  throw new RunHousekeepingError(
    "forbidden",
    `Only the person who started this run or an admin may ${what} it; ${identity.email} did not start it.`,
  );
}

function activeRunRefusal(run: HousekeptRun): RunHousekeepingError {
  const state = run.status === "RUNNING" ? "still running" : "waiting for a decision";
  return new RunHousekeepingError(
    "run_active",
    `Run ${run.id} is ${state}: a run is deleted only once it has ended.`,
  );
}

async function noSuchRun(db: Db, runId: string): Promise<RunHousekeepingError> {
  const deletion = await findRunDeletion(db, runId);
  if (!deletion) return new RunHousekeepingError("not_found", `No run ${runId}.`);
  const by = deletion.actorName ? ` by ${deletion.actorName}` : " from the command line";
  return new RunHousekeepingError(
    "not_found",
    `Run ${runId} ("${deletion.runName}") was deleted at ${deletion.at.toISOString()}${by}; its decisions stay in the audit.`,
  );
}

function actorOf(identity: Identity | null): RunChangeActor {
  return identity && { id: identity.userId, name: identity.name };
}
