/** A conversation or option that cannot be rendered as Llama 3.1 reads it. `code` is stable. */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  constructor(
    readonly code: 'invalid_input' | 'turn_order' | 'missing_user_turn' | 'ids_mismatch',
    message: string,
  ) {
    super(message);
  }
}
