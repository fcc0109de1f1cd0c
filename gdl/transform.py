"""The one transformer from lark's parse tree to the frozen AST of gdl/ast.py.

Nothing after this module sees a lark Tree or Token.
"""
from __future__ import annotations

import re

from lark import Token, Transformer, v_args

from . import ast as A
from .errors import MOST_DIGITS, GdlSyntaxError
from .span import Span


#: a string's escapes (docs/language.md, "Strings") and what each stands for
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}
_ESCAPE_OR_CONTROL = re.compile(r"\\(.)|([\x00-\x08\x0a-\x1f\x7f])", re.S)


def _unquote(tok: Token, path: str = "") -> str:
    """A STRING token's text: between its quotes, with its escapes read; an unknown escape
    or a control character (a NUL, a carriage return) is a syntax error at its place."""
    body = tok[1:-1]
    if not _ESCAPE_OR_CONTROL.search(body):
        return body

    def read(match):
        escaped, control = match.groups()
        if escaped in _ESCAPES:
            return _ESCAPES[escaped]
        col = (getattr(tok, "column", 0) or 0) + 1 + match.start()
        what = f"the escape \\{escaped}" if control is None else f"the character {control!r}"
        raise GdlSyntaxError(f"a string cannot hold {what}: its escapes are \\\", \\\\, "
                             f"\\n and \\t", Span(path, getattr(tok, "line", 0) or 0, col))
    return _ESCAPE_OR_CONTROL.sub(read, body)


class ToAst(Transformer):
    """Builds AST nodes bottom-up; each method handles one grammar alternative."""

    def __init__(self, path: str):
        super().__init__(visit_tokens=False)
        self.path = path

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.path, 0, 0)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line or 0, tok.column or 0)

    # ------------------------------------------------------------------ declarations
    @v_args(meta=True)
    def start(self, meta, items):
        return tuple(i for i in items if i is not None)

    @v_args(meta=True)
    def game_decl(self, meta, items):
        return A.GameDecl(_unquote(items[0], self.path), span=self._span(meta))

    @v_args(meta=True)
    def variant_decl(self, meta, items):
        return A.VariantOf(_unquote(items[0], self.path), span=self._span(meta))

    @v_args(meta=True)
    def players_named(self, meta, items):
        names = tuple(str(t) for t in items)
        return A.PlayersDecl(names, len(names), len(names), len(names), span=self._span(meta))

    @v_args(meta=True)
    def players_count(self, meta, items):
        n = int(items[0])
        return A.PlayersDecl((), n, n, n, span=self._span(meta))

    @v_args(meta=True)
    def players_range(self, meta, items):
        lo, hi, default = (int(t) for t in items)
        return A.PlayersDecl((), lo, hi, default, span=self._span(meta))

    @v_args(meta=True)
    def option_decl(self, meta, items):
        name, type_, default, doc = items
        return A.OptionDecl(str(name), type_, default, doc, span=self._span(meta))

    def doc_lines(self, items):
        return " ".join(_unquote(t, self.path) for t in items
                        if isinstance(t, Token) and t.type == "STRING")

    @v_args(meta=True)
    def enum_decl(self, meta, items):
        return A.EnumDecl(str(items[0]), tuple(items[1:]), span=self._span(meta))

    @v_args(meta=True)
    def enum_member(self, meta, items):
        return A.EnumMember(str(items[0]), tuple(_unquote(t, self.path) for t in items[1:]),
                            span=self._span(meta))

    @v_args(meta=True)
    def card_decl(self, meta, items):
        return A.CardDecl(tuple(items), span=self._span(meta))

    @v_args(meta=True)
    def field(self, meta, items):
        return A.Field(str(items[0]), items[1], span=self._span(meta))

    @v_args(meta=True)
    def cards_decl(self, meta, items):
        zone, item, *rest = items
        fors = tuple(r for r in rest if isinstance(r, A.CompFor))
        cond = next((r for r in rest if not isinstance(r, A.CompFor)), None)
        return A.CardsDecl(zone, item, fors, cond, span=self._span(meta))

    @v_args(meta=True)
    def zone_decl(self, meta, items):
        name = str(items[0])
        rest = list(items[1:])
        indices = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        kind_tok = rest.pop(0)
        try:
            kind = A.ZoneKind(str(kind_tok))
        except ValueError:
            raise GdlSyntaxError(f"a zone is a 'stack' or a 'set', not {str(kind_tok)!r}",
                                 self._tok_span(kind_tok), expected=("stack", "set")) from None
        seen, facing = A.Seen.NOBODY, A.Facing.DOWN
        for prop in rest:
            if isinstance(prop, A.Facing):
                facing = prop
            else:
                seen = prop
        return A.ZoneDecl(name, indices, kind, seen, facing, span=self._span(meta))

    def index_domains(self, items):
        return tuple(items)

    def zone_seen(self, items):
        tok = items[0]
        try:
            return A.Seen(str(tok))
        except ValueError:
            raise GdlSyntaxError(f"'seen by' takes one of owner, all, others, nobody, not "
                                 f"{str(tok)!r}", self._tok_span(tok),
                                 expected=[s.value for s in A.Seen]) from None

    def zone_facing(self, items):
        return items[0]

    def facing_up(self, items):
        return A.Facing.UP

    def facing_down(self, items):
        return A.Facing.DOWN

    @v_args(meta=True)
    def var_decl(self, meta, items):
        name = str(items[0])
        rest = list(items[1:])
        indices = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        type_ = rest.pop(0)
        seen = self.zone_seen([rest.pop()]) if rest and isinstance(rest[-1], Token) \
            else A.Seen.ALL
        init = rest.pop(0) if rest else None
        return A.VarDecl(name, indices, type_, init, seen, span=self._span(meta))

    @v_args(meta=True)
    def def_decl(self, meta, items):
        name, params, *rest = items
        cite = rest[0] if len(rest) == 2 else ""
        return A.DefDecl(str(name), params or (), cite, rest[-1], span=self._span(meta))

    @v_args(meta=True)
    def table_decl(self, meta, items):
        name, params, *rest = items
        cite = rest.pop(0) if rest and isinstance(rest[0], str) else ""
        rows = tuple(r for r in rest if isinstance(r, A.TableRow))
        defaults = [r[1] for r in rest if isinstance(r, tuple)]
        if len(defaults) > 1:
            raise GdlSyntaxError(f"table {name} has {len(defaults)} else rows: one gives "
                                 f"the value of every key no row names",
                                 getattr(defaults[1], "span", self._span(meta)))
        default = defaults[0] if defaults else None
        return A.TableDecl(str(name), params, cite, rows, default, span=self._span(meta))

    @v_args(meta=True)
    def table_row(self, meta, items):
        return A.TableRow(items[0], items[1], span=self._span(meta))

    def table_else(self, items):
        return ("else", items[0])

    def table_keys(self, items):
        return tuple(items)

    @v_args(meta=True)
    def rule_decl(self, meta, items):
        name, params, *rest = items
        cite = rest[0] if len(rest) == 2 else ""
        return A.RuleDecl(str(name), params or (), cite, rest[-1], span=self._span(meta))

    @v_args(meta=True)
    def action_decl(self, meta, items):
        name, params, *rest = items
        cite = rest.pop(0) if rest and isinstance(rest[0], str) else ""
        requires = tuple(r for r in rest if isinstance(r, A.Require))
        secrets = tuple(r for r in rest if isinstance(r, A.Secret))
        body = tuple(r for r in rest if not isinstance(r, (A.Require, A.Secret)))
        first_stmt = next((i for i, r in enumerate(rest)
                           if not isinstance(r, (A.Require, A.Secret))), len(rest))
        late = [r for r in rest[first_stmt:] if isinstance(r, A.Require)]
        if late:
            raise GdlSyntaxError(f"action {name}: every 'require' must come before the "
                                 f"action's statements", late[0].span)
        return A.ActionDecl(str(name), params or (), cite, requires, secrets, body,
                            span=self._span(meta))

    @v_args(meta=True)
    def require(self, meta, items):
        reason = items[1] if len(items) > 1 else ""
        return A.Require(items[0], reason, span=self._span(meta))

    @v_args(meta=True)
    def secret(self, meta, items):
        names = tuple(str(t) for t in items if isinstance(t, Token))
        when = next((i for i in items if not isinstance(i, Token)), None)
        return A.Secret(names, when, span=self._span(meta))

    @v_args(meta=True)
    def trigger_decl(self, meta, items):
        name, cond, priority, *rest = items
        cite = rest[0] if len(rest) == 2 else ""
        return A.TriggerDecl(str(name), cond, int(priority or 0), cite, rest[-1],
                             span=self._span(meta))

    @v_args(meta=True)
    def invariant_decl(self, meta, items):
        name, *rest = items
        cite = rest[0] if len(rest) == 2 else ""
        return A.InvariantDecl(str(name), cite, rest[-1], span=self._span(meta))

    @v_args(meta=True)
    def flow_decl(self, meta, items):
        return A.FlowDecl(items[0], span=self._span(meta))

    @v_args(meta=True)
    def returns_decl(self, meta, items):
        return A.ReturnsDecl(str(items[0]), items[1], span=self._span(meta))

    def cite(self, items):
        return _unquote(items[0], self.path)

    def params(self, items):
        return tuple(items)

    @v_args(meta=True)
    def param(self, meta, items):
        return A.Param(str(items[0]), items[1], len(items) > 2, span=self._span(meta))

    # ------------------------------------------------------------------ types
    @v_args(meta=True)
    def type_expr(self, meta, items):
        expr, *opt = items
        span = self._span(meta)
        if isinstance(expr, A.Name):
            t = A.NamedType(expr.id, span=span)
        elif isinstance(expr, A.Range):
            t = A.RangeType(expr.lo, expr.hi, span=span)
        elif isinstance(expr, A.SetLit) and expr.items and all(
                isinstance(i, A.Name) for i in expr.items):
            t = A.ChoiceType(tuple(i.id for i in expr.items), span=span)
        else:
            listed = " (list[...] types only a def's or rule's parameter: a variable holds " \
                "one value)" if A.list_item_domain(expr) is not None else ""
            raise GdlSyntaxError("a type is a name (int, bool, player, card, an enum or a "
                                 "zone family), a range such as 1..10, or a choice such as "
                                 "{low, high}" + listed, span)
        return A.OptionalType(t, span=span) if opt else t

    # ------------------------------------------------------------------ statements
    def block(self, items):
        return tuple(items)

    @v_args(meta=True)
    def repeat_stmt(self, meta, items):
        return A.Repeat(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def while_stmt(self, meta, items):
        return A.While(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def for_stmt(self, meta, items):
        return A.For(str(items[0]), items[1], items[2], span=self._span(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, items):
        branches = [(items[0], items[1])]
        else_body = ()
        for extra in items[2:]:
            if extra[0] == "elif":
                branches.append(extra[1:])
            else:
                else_body = extra[1]
        return A.If(tuple(branches), else_body, span=self._span(meta))

    def elif_clause(self, items):
        return ("elif", items[0], items[1])

    def else_clause(self, items):
        return ("else", items[0])

    @v_args(meta=True)
    def target(self, meta, items):
        return A.Target(str(items[0]), items[1] if len(items) > 1 else (), span=self._span(meta))

    @v_args(meta=True)
    def assign(self, meta, items):
        return A.Assign(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def aug_assign(self, meta, items):
        return A.AugAssign(items[0], str(items[1])[0], items[2], span=self._span(meta))

    @v_args(meta=True)
    def let_stmt(self, meta, items):
        return A.Let(str(items[0]), items[1], span=self._span(meta))

    @v_args(meta=True)
    def move_stmt(self, meta, items):
        facing = items[2] if len(items) > 2 else None
        return A.Move(items[0], items[1], facing, span=self._span(meta))

    @v_args(meta=True)
    def place_top(self, meta, items):
        return A.Place(A.PlaceKind.TOP, items[0], span=self._span(meta))

    @v_args(meta=True)
    def place_bottom(self, meta, items):
        return A.Place(A.PlaceKind.BOTTOM, items[0], span=self._span(meta))

    @v_args(meta=True)
    def place_depth(self, meta, items):
        return A.Place(A.PlaceKind.DEPTH, items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def place_default(self, meta, items):
        return A.Place(A.PlaceKind.DEFAULT, items[0], span=self._span(meta))

    def face(self, items):
        return items[0]

    @v_args(meta=True)
    def deal_stmt(self, meta, items):
        count, source, dest, comp, *rest = items
        facing = rest[0] if rest else None
        return A.Deal(count, source, dest, comp.var, comp.iter, facing, span=self._span(meta))

    @v_args(meta=True)
    def shuffle_stmt(self, meta, items):
        return A.Shuffle(items[0], span=self._span(meta))

    @v_args(meta=True)
    def flip_stmt(self, meta, items):
        return A.Flip(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def reveal_stmt(self, meta, items):
        return A.Reveal(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def choose_stmt(self, meta, items):
        return A.Choose(items[0], tuple(str(t) for t in items[1:]), span=self._span(meta))

    @v_args(meta=True)
    def simul_stmt(self, meta, items):
        return A.Simultaneous(str(items[0]), items[1], tuple(str(t) for t in items[2:]),
                              span=self._span(meta))

    @v_args(meta=True)
    def random_stmt(self, meta, items):
        return A.RandomChoice(str(items[0]), items[1], span=self._span(meta))

    @v_args(meta=True)
    def secret_random_stmt(self, meta, items):
        return A.RandomChoice(str(items[0]), items[1], True, span=self._span(meta))

    @v_args(meta=True)
    def win_stmt(self, meta, items):
        return A.Win(items[0], span=self._span(meta))

    @v_args(meta=True)
    def draw_stmt(self, meta, items):
        return A.Draw(span=self._span(meta))

    @v_args(meta=True)
    def end_stmt(self, meta, items):
        return A.EndGame(span=self._span(meta))

    @v_args(meta=True)
    def eliminate_stmt(self, meta, items):
        return A.Eliminate(items[0], span=self._span(meta))

    @v_args(meta=True)
    def fail_stmt(self, meta, items):
        return A.Fail(items[0], span=self._span(meta))

    @v_args(meta=True)
    def call_stmt(self, meta, items):
        args = items[1] if len(items) > 1 and items[1] is not None else ()
        return A.CallRule(str(items[0]), args, span=self._span(meta))

    @v_args(meta=True)
    def pass_stmt(self, meta, items):
        return A.Pass(span=self._span(meta))

    # ------------------------------------------------------------------ expressions
    @v_args(meta=True)
    def cond_expr(self, meta, items):
        return A.Cond(*items, span=self._span(meta))

    @v_args(meta=True)
    def or_op(self, meta, items):
        left, right = items
        lefts = left.items if isinstance(left, A.Or) else (left,)
        return A.Or(lefts + (right,), span=self._span(meta))

    @v_args(meta=True)
    def and_op(self, meta, items):
        left, right = items
        lefts = left.items if isinstance(left, A.And) else (left,)
        return A.And(lefts + (right,), span=self._span(meta))

    @v_args(meta=True)
    def not_op(self, meta, items):
        return A.Not(items[0], span=self._span(meta))

    @v_args(meta=True)
    def compare(self, meta, items):
        return A.Compare(str(items[1]), items[0], items[2], span=self._span(meta))

    @v_args(meta=True)
    def member(self, meta, items):
        return A.Member(items[0], items[1], False, span=self._span(meta))

    @v_args(meta=True)
    def not_member(self, meta, items):
        return A.Member(items[0], items[1], True, span=self._span(meta))

    @v_args(meta=True)
    def range_lit(self, meta, items):
        return A.Range(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def binop(self, meta, items):
        return A.BinOp(str(items[1]), items[0], items[2], span=self._span(meta))

    @v_args(meta=True)
    def neg(self, meta, items):
        if isinstance(items[0], A.IntLit):
            return A.IntLit(-items[0].value, span=self._span(meta))
        return A.Neg(items[0], span=self._span(meta))

    @v_args(meta=True)
    def attr(self, meta, items):
        return A.Attr(items[0], str(items[1]), span=self._span(meta))

    @v_args(meta=True)
    def index(self, meta, items):
        return A.Index(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def call(self, meta, items):
        args = items[1] if len(items) > 1 and items[1] is not None else ()
        return A.Call(str(items[0]), args, span=self._span(meta))

    @v_args(meta=True)
    def aggregate(self, meta, items):
        func, item, *rest = items
        fors = tuple(r for r in rest if isinstance(r, A.CompFor))
        cond = next((r for r in rest if not isinstance(r, A.CompFor)), None)
        return A.Aggregate(str(func), item, fors, cond, span=self._span(meta))

    @v_args(meta=True)
    def list_comp(self, meta, items):
        item, *rest = items
        fors = tuple(r for r in rest if isinstance(r, A.CompFor))
        cond = next((r for r in rest if not isinstance(r, A.CompFor)), None)
        return A.ListComp(item, fors, cond, span=self._span(meta))

    @v_args(meta=True)
    def list_lit(self, meta, items):
        args = items[0] if items and items[0] is not None else ()
        return A.ListLit(args, span=self._span(meta))

    @v_args(meta=True)
    def set_lit(self, meta, items):
        args = items[0] if items and items[0] is not None else ()
        return A.SetLit(args, span=self._span(meta))

    def args(self, items):
        return tuple(items)

    @v_args(meta=True)
    def keyword_arg(self, meta, items):
        return A.Keyword(str(items[0]), items[1], span=self._span(meta))

    @v_args(meta=True)
    def comp_for(self, meta, items):
        return A.CompFor(str(items[0]), items[1], span=self._span(meta))

    def comp_if(self, items):
        return items[0]

    @v_args(meta=True)
    def int_lit(self, meta, items):
        if len(items[0]) > MOST_DIGITS:         # int() refuses more than 4,300 digits
            raise GdlSyntaxError(f"this number has {len(items[0]):,} digits: gdl takes "
                                 f"at most {MOST_DIGITS}", self._span(meta))
        return A.IntLit(int(items[0]), span=self._span(meta))

    @v_args(meta=True)
    def str_lit(self, meta, items):
        return A.StrLit(_unquote(items[0], self.path), span=self._span(meta))

    @v_args(meta=True)
    def true_lit(self, meta, items):
        return A.BoolLit(True, span=self._span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, items):
        return A.BoolLit(False, span=self._span(meta))

    @v_args(meta=True)
    def none_lit(self, meta, items):
        return A.NoneLit(span=self._span(meta))

    @v_args(meta=True)
    def name(self, meta, items):
        return A.Name(str(items[0]), span=self._span(meta))
