/**
 * Exit statuses, as sysexits(3) defines them, so that scripts and service managers can tell a wrong
 * command line from missing input, an unreachable server, a full disk or a try-again-later.
 */
export const EXIT = {
  ok: 0,
  /** A check found problems (verify, import of unreadable records): the command ran, the data is not all right. */
  problems: 1,
  /** EX_USAGE: a wrong flag, value or argument. */
  usage: 64,
  /** EX_DATAERR: the input data is wrong (a malformed seeds file, a WARC that is not one). */
  dataError: 65,
  /** EX_NOINPUT: an input file or archive does not exist, or is damaged past reading (a corrupt metadata store). */
  noInput: 66,
  /** EX_UNAVAILABLE: nothing could be fetched (every seed refused or failed). */
  unavailable: 69,
  /** EX_SOFTWARE: a bug in datamonitor. */
  software: 70,
  /** EX_IOERR: the archive could not be written (disk full, I/O error); running again resumes. */
  ioError: 74,
  /** EX_NOPERM: this user may not write the archive (file modes, a read-only mount). */
  noPermission: 77,
  /** EX_TEMPFAIL: try again later (a cycle lock held by another run). */
  tempFail: 75,
  /**
   * A SPARQL query met one of its limits (time, memory, result size, or what the engine can evaluate).
   * Outside sysexits' range (64-78) on purpose: none of its meanings fits (69 is "nothing could be
   * fetched", 71 an operating-system failure), and a script must tell a query to narrow from a failed crawl.
   */
  queryLimit: 79,
  /** 128 + SIGINT: stopped by Ctrl-C or SIGTERM before the work was done (resumable). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
