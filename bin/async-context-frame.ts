// AsyncLocalStorage without promise hooks for the production server
// (docs/operations.md#asynclocalstorage-without-promise-hooks). Next keeps a request's context in
// AsyncLocalStorage; on Node 22 that turns on a hook for every promise the process makes, the API
// lane's included, unless Node runs with --experimental-async-context-frame. Node 24 does so by
// default and names the option --async-context-frame, so no one flag in package.json works on both: on
// Node 22 and 23 the server starts itself again with it, as its first step. process.execve replaces
// the program in the same process (the same id), so a process manager, SIGTERM and `kill -9` see one
// process throughout.

export const ASYNC_CONTEXT_FRAME_FLAG = "--experimental-async-context-frame";
const OPT_OUT = "--no-experimental-async-context-frame";

/**
 * Whether a Node of `version` started with `execArgv` and `nodeOptions` still lacks the frame: on
 * Node 22 or 23, unless the flag or its opt-out was given on the command line or in NODE_OPTIONS.
 */
export function lacksAsyncContextFrame(
  version: string,
  execArgv: readonly string[],
  nodeOptions: string,
): boolean {
  const major = Number(version.split(".")[0]);
  if (major !== 22 && major !== 23) return false;
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  return !given.includes(ASYNC_CONTEXT_FRAME_FLAG) && !given.includes(OPT_OUT);
}

/** Starts this process's program again with the flag when it lacks the frame; returns when it need not. */
export function startWithAsyncContextFrame(): void {
  if (!lacksAsyncContextFrame(process.versions.node, process.execArgv, process.env.NODE_OPTIONS ?? ""))
    return;
  // Where the platform has no execve (Windows), the server runs as it was started, only slower.
  if (typeof process.execve !== "function") return;
  process.execve(
    process.execPath,
    [process.execPath, ASYNC_CONTEXT_FRAME_FLAG, ...process.execArgv, ...process.argv.slice(1)],
    process.env,
  );
}
