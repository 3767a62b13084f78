/** What a parser says about text it could not accept: what was wrong, and the right form. */
export interface Invalid {
  kind: 'invalid';
  /** One sentence naming the bad part, e.g. "page-size:0 is not a whole number from 1 to 100". */
  problem: string;
  /** The right form, as the user would type it. */
  example: string;
  /** The nearest known word, when a word looks misspelled. */
  suggestion?: string;
}

export function invalid(problem: string, example: string, suggestion?: string): Invalid {
  return suggestion === undefined ? { kind: 'invalid', problem, example } : { kind: 'invalid', problem, example, suggestion };
}
