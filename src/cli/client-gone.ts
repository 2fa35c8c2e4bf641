/**
 * Whether the agent CLI that ran a hook is still there. A client killed
 * without ending its hooks (its terminal closed, a SIGKILL) leaves the hook
 * running, re-parented to init or a subreaper; a stop hook would then go on
 * waiting and take the next message to an agent that is gone. The parent's
 * pid changing is the sign (on POSIX; elsewhere it never changes, and the
 * request's own timeout ends the wait).
 */
export function whenClientGone(onGone: () => void, everyMs: number): () => void {
  const client = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === client) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  // The check never keeps the hook alive on its own.
  timer.unref();
  return () => clearInterval(timer);
}
