/**
 * A failure of this app's own plumbing while running a call (the Python interpreter could not start or
 * was lost), as opposed to a failure of the tool the model should read (ToolError, failure-texts.ts).
 * The agent loop never gives its text to the model: the turn ends, the tool card shows the failure and
 * the user reads `message`, a plain sentence written for them.
 */
export class AppFailure extends Error {
  override readonly name = 'AppFailure';
}
