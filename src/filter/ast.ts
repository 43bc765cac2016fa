// The parsed form of a filter expression (grammar.ts builds it).

/** Match operators; `contains` parses as `in` and `not contains` as `notIn`, as in go-bexpr. */
export type MatchOp = 'equal' | 'notEqual' | 'in' | 'notIn' | 'isEmpty' | 'isNotEmpty' | 'matches' | 'notMatches';

export type FilterAst =
  | { type: 'or'; left: FilterAst; right: FilterAst }
  | { type: 'and'; left: FilterAst; right: FilterAst }
  | { type: 'not'; operand: FilterAst }
  /** `selector` is the path of field names and map keys; `value` the raw text (absent for is [not] empty). */
  | { type: 'match'; selector: string[]; op: MatchOp; value: string | undefined };

/** go-bexpr's names for the operators, used in its error messages. */
export const OP_NAMES: Record<MatchOp, string> = {
  equal: 'Equal',
  notEqual: 'Not Equal',
  in: 'In',
  notIn: 'Not In',
  isEmpty: 'Is Empty',
  isNotEmpty: 'Is Not Empty',
  matches: 'Matches',
  notMatches: 'Not Matches',
};
