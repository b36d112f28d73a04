/** An error caused by the user's input (bad argument, missing file): shown without a stack trace. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}
