// The filter language of Consul's `?filter=` (HashiCorp's go-bexpr), as a
// peggy (PEG) grammar. Precedence, lowest first: `or`, `and`, `not`, then a
// parenthesised expression or one match. Keywords need whitespace around them,
// as in go-bexpr, so `notes == x` is a match on the selector `notes`.
//
// A match is one of
//   <selector> ==|!=|contains|not contains|matches|not matches <value>
//   <selector> is empty|is not empty
//   <value> in|not in <selector>
// A selector is an identifier followed by `.field` or `["map key"]` parts; a
// value is a number, a string ("…" with Go escapes, or `raw`), or a bare
// identifier path taken as text (`Status == passing`).
//
// The actions build plain AST objects (ast.ts). Errors found by actions use
// peggy's error(), so they carry the position like the syntax errors do.
export const FILTER_GRAMMAR = String.raw`
{{
  function match(selector, op, value) {
    return { type: 'match', selector, op, value };
  }
}}

Input
  = _? expr:Or _? End { return expr; }

Or
  = left:And _ "or" _ right:Or { return { type: 'or', left, right }; }
  / And

And
  = left:Not _ "and" _ right:And { return { type: 'and', left, right }; }
  / Not

Not
  = "not" _ operand:Not {
      // not not X is X
      return operand.type === 'not' ? operand.operand : { type: 'not', operand };
    }
  / Group

Group
  = "(" _? expr:Or _? ")" { return expr; }
  / Match
  / "(" _? Or _? !")" { error('rule "grouping": Unmatched parentheses'); }

Match
  = selector:Selector op:SelectorValueOp value:Value { return match(selector, op, value); }
  / selector:Selector op:EmptyOp { return match(selector, op, undefined); }
  / value:Value op:InOp selector:Selector { return match(selector, op, value); }
  / Value InOp !Selector { error('rule "match": Invalid selector'); }

SelectorValueOp
  = _? "==" _? { return 'equal'; }
  / _? "!=" _? { return 'notEqual'; }
  / _ "contains" _ { return 'in'; }
  / _ "not" _ "contains" _ { return 'notIn'; }
  / _ "matches" _ { return 'matches'; }
  / _ "not" _ "matches" _ { return 'notMatches'; }

EmptyOp
  = _ "is" _ "empty" { return 'isEmpty'; }
  / _ "is" _ "not" _ "empty" { return 'isNotEmpty'; }

InOp
  = _ "in" _ { return 'in'; }
  / _ "not" _ "in" _ { return 'notIn'; }

Selector
  = first:Identifier rest:Part* { return [first, ...rest]; }

Part
  = "." name:Identifier { return name; }
  / "[" _? key:String _? "]" { return key; }
  / "[" _? !String { error('rule "index": Invalid index'); }
  / "[" _? String _? !"]" { error('rule "index": Unclosed index expression'); }

Identifier
  = $([a-zA-Z] [a-zA-Z0-9_]*)

Value
  = selector:Selector { return selector.join('.'); }
  / Number
  / String

Number
  = text:$("-"? Digits) &AfterNumber { return text; }
  / "-"? Digits !AfterNumber { error('rule "number": Invalid number literal'); }

Digits
  = ("0" / [1-9] [0-9]*) ("." [0-9]+)?

AfterNumber
  = _ / End / ")"

String
  = "\x60" chars:$[^\x60]* "\x60" { return chars; }
  / "\"" chars:$[^"]* "\"" { return options.unquote(chars, error); }
  / ("\x60" [^\x60]* / "\"" [^"]*) End { error('rule "string": Unterminated string literal'); }

_
  = [ \t\r\n]+

End
  = !.
`;
