import "server-only";

/**
 * Wraps `task` so it runs one at a time: a call while it runs schedules
 * exactly one more run after it. A failure is handed to `onError` (streams
 * close, so the browser reconnects and resumes) instead of being lost.
 */
export function createSerialTask(task: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let isRunning = false;
  let isRequested = false;
  const run = async () => {
    if (isRunning) {
      isRequested = true;
      return;
    }
    isRunning = true;
    try {
      do {
        isRequested = false;
        await task();
      } while (isRequested);
    } catch (error) {
      onError(error);
    } finally {
      isRunning = false;
    }
  };
  return () => void run();
}
