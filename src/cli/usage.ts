/** `life-thread --help`: kept apart so the help path loads nothing else. */
export const USAGE = `life-thread — durable reminders, scheduled commands and wakes from a terminal (Life Thread)

Usage:
  life-thread remind add --text T (--when W | --cron EXPR) [--tz Z] [--allow-nested]
  life-thread remind list
  life-thread remind remove ID
  life-thread schedule add-command --command C (--when W | --cron EXPR) [--tz Z]
                                   [--timeout-minutes N] [--allow-nested]
  life-thread schedule list
  life-thread schedule remove ID
  life-thread schedule move ID (--when W | --cron EXPR) [--tz Z] [--timeout-minutes N]
  life-thread schedule run-now ID
  life-thread schedule log ID
  life-thread dispatch --once [--commands-only] [--reminder-max-lateness-hours H]
                       [--command-max-lateness-hours H]
  life-thread doctor
  life-thread service install [--kind systemd|launchd|cron] [--dry-run]
  life-thread service status
  life-thread service uninstall
  life-thread wake add --text T (--delay-seconds N | --at W | --on job.done --job-id ID | --on presence.online | --on scm.changed) [--thread T] [--cancel-token K]
                       [--landing URI|JSON]
                       [--allow-nested]
  life-thread wake list
  life-thread wake cancel K
  life-thread topic verify DIR
  life-thread wait W [--timeout S]
  life-thread run [--wake T] [--timeout-minutes N] [--allow-nested] -- COMMAND [ARG...]
  life-thread mcp
  life-thread help | --help | -h | --version

Global flags (anywhere on the line):
  --store DIR   the store directory (default: $LIFE_THREAD_STORE; required)
  --json        print only JSON on stdout; errors go to stderr as {"error":{"field","reason"}}
  --now ISO     the clock, an ISO-8601 instant with a zone (default: the system clock)
  --tz Z        the owner's IANA zone (default: $LIFE_THREAD_TZ, else the zone a VS Code
                window recorded in the store's owner.json, else the system zone)

Times:
  --when takes words or ISO read in the owner's zone: 'in 20 minutes', 'tomorrow at 9',
  'friday 18:30', '2026-10-03 09:00', 'every 30m', 'every weekday at 09:00'.
  --cron takes 5 fields (minute hour day-of-month month day-of-week) in --tz or the default zone.
  Reminders recur at most every 10 minutes, commands every minute. A time in the past is refused.

Notes:
  IDs start with r- (reminder) or c- (command); the schedule verbs remove, move and run-now take
  either. A command runs in bash in the directory it was added from, with a timeout of
  --timeout-minutes (1-60, default 2). Inside a command job (LIFE_THREAD_JOB set) adding a row
  needs --allow-nested. 'dispatch --once' runs one headless pass: due reminders are printed and
  due commands run; the VS Code extension is the long-running dispatcher.

While VS Code is closed:
  'service install' installs the operating system's own timer for this store (a systemd user timer,
  a launchd agent on macOS, else a crontab line; --kind picks one, --dry-run prints what it would
  write). Every minute it runs <store>/bin/life-thread dispatch --once --commands-only, which runs
  due commands with the PATH recorded when they were added, writes <store>/timer.tick, appends its
  output to <store>/logs/timer.log, and leaves reminders for the next VS Code window (saying once,
  where notify-send or osascript exists, that one waits). 'service status' names the timer, its
  last pass, the next due command and the runtime of the store's CLI; 'service uninstall' removes
  exactly this store's timer and keeps every other crontab line.

Wakes:
  A wake wakes the life thread (@life in VS Code) with a short pulse: after --delay-seconds
  (1-2592000) or --at W (once, words or ISO in the owner's zone, at most 30 days ahead), when a
  job ends (--on job.done --job-id: a task name, terminal:<terminal name> or a command id c-...),
  when the user is back (--on presence.online) or when git HEAD or the index change
  (--on scm.changed). IDs start with w-. 'wake cancel K' removes the pending wakes added with
  --cancel-token K. Wakes are fired by the VS Code extension (a new @life turn), by 'mcp' and
  'wait' for wakes set outside a window; 'dispatch --once' never fires them.

Topics:
  'topic verify DIR' checks a continuity topic folder (<workspace>/.life-thread/topics/<topic>): the
  hash chain of its export and of those kept in history/, and the anchors of its latest filled
  TopicDecisions (the draft under review, else the approved ones). Placeholders of a partition that
  is not filled yet are reported, not failed. Needs no store. Exit 3 names the first broken message.

Agents in a terminal:
  'mcp' serves the Life Thread tools to an MCP client on stdio (lifethread_remind, _schedule,
  _sendToLifeThread, _resolveAnchor); its wakes come back into that session where the client takes
  pushes. 'wait W' blocks until wake W fires and prints its pulse (--json: {"text","life_wake"});
  exit 4 after --timeout S. 'run -- COMMAND' runs the command as a job in the foreground (its own
  process group, log at logs/<job id>.log, timeout --timeout-minutes, default 60), prints
  'life-thread: job j-... (wake w-...)' to stderr first (--json: {"jobId","wakeId"}), and exits
  with the command's exit code (124 on its timeout); --wake T wakes you with T when it ends.

Exit codes: 0 ok, 2 bad input, 3 store unreadable, newer schema or lock not obtained in 10 s, or
(topic verify) a broken chain or an anchor that does not stand; 4 timed out waiting; 'run' exits
with its command's code.
`;
