"""Lower if/elif/else and early returns to selects (`a if c else b`), giving straight-line
single-assignment code that ends in one return. Expressions are left as they are.

Each branch is lowered on its own copy of the name map; a name that differs after the
branches is merged with a select (NVIDIA Warp's emit_If). A branch that returns takes the
rest of the function with it, so every path ends in exactly one return value.
"""
from __future__ import annotations

import ast
import copy

from tritonize.errors import ControlFlowError
from tritonize.passes.ast_tools import assign, copy_location, name


class _Unbound:
    """A name bound on one path only; using it afterwards is an error."""

    def __init__(self, variable, if_node):
        self.variable, self.if_node = variable, if_node


class _Substitute(ast.NodeTransformer):
    """A copy of an expression with each name replaced by its current value (one walk,
    cheaper than deepcopy-then-transform: the lowering does this for every statement)."""

    def __init__(self, pass_, env):
        self.pass_, self.env = pass_, env

    def generic_visit(self, node):
        node = copy.copy(node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Attribute(self, node):
        return node  # `math.NAME`: the only attribute left after ResolveNames

    def visit_Call(self, node):
        node = copy.copy(node)
        node.args = [self.visit(a) for a in node.args]  # the callee is math.* or a builtin
        return node

    def visit_Name(self, node):
        value = self.env.get(node.id)
        if value is None:
            raise ControlFlowError(f"local variable '{node.id}' is used before it is assigned",
                                   self.pass_.ctx.location(node))
        if isinstance(value, _Unbound):
            raise ControlFlowError(
                f"'{node.id}' is assigned on only some paths of the `if` at line {value.if_node.lineno} "
                f"and used here; assign it on every path (or before the `if`)", self.pass_.ctx.location(node))
        return copy_location(copy.deepcopy(value), node)


class LowerControlFlow:
    """
    >>> # if x > 0:            c = x > 0
    >>> #     y = x            y = x if c else -x      (select)
    >>> # else:                return y
    >>> #     y = -x
    >>> # return y
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        self.out: list[ast.stmt] = []
        self.claimed = set(self.ctx.params)
        env = {p: name(p) for p in self.ctx.params}
        ret = self.lower(tree.body, env)
        if ret is None:
            raise ControlFlowError(f"{self.ctx.function_name}() can reach its end without returning a value",
                                   self.ctx.location(tree))
        values, return_node = ret
        self.ctx.num_outputs = len(values)
        result = values[0] if len(values) == 1 else ast.Tuple(elts=values, ctx=ast.Load())
        tree.body = self.out + [copy_location(ast.Return(value=result), return_node)]
        return ast.fix_missing_locations(tree)

    def substitute(self, node, env):
        return _Substitute(self, env).visit(node)

    def define(self, variable: str, value: ast.expr, origin: ast.AST) -> ast.expr:
        """Bind a new version of `variable`; simple values are propagated, not assigned."""
        if isinstance(value, (ast.Name, ast.Constant)):
            return value
        if variable in self.claimed:
            ssa_name = self.ctx.names.fresh(variable)
        else:
            ssa_name = variable
        self.claimed.add(ssa_name)
        self.ctx.names.taken.add(ssa_name)
        self.out.append(copy_location(assign(ssa_name, value), origin))
        return name(ssa_name)

    def lower(self, statements, env):
        """Lower a statement sequence; returns None or (return values, the return node)."""
        for index, statement in enumerate(statements):
            if isinstance(statement, ast.Assign):
                target = statement.targets[0].id
                env[target] = self.define(target, self.substitute(statement.value, env), statement)
            elif isinstance(statement, ast.Return):
                value = statement.value
                elements = value.elts if isinstance(value, ast.Tuple) else [value]
                return [self.substitute(e, env) for e in elements], statement
            elif isinstance(statement, ast.If):
                rest = statements[index + 1:]
                test = self.substitute(statement.test, env)
                if isinstance(test, ast.Constant):
                    # a constant condition keeps one branch, lowered with the rest of this
                    # sequence (a return in it ends the sequence there), which it thereby consumes
                    return self.lower((statement.body if test.value else statement.orelse) + rest, env)
                result = self.lower_if(statement, test, env, rest)
                if result is not None:
                    return result
            else:  # CheckSubset and DesugarAssignments leave nothing else
                raise ControlFlowError(f"unexpected {type(statement).__name__}", self.ctx.location(statement))
        return None

    def lower_if(self, node: ast.If, test: ast.expr, env, rest):
        """Lower an `if` whose condition `test` (substituted) is not a constant."""
        condition = self.define("cond", copy_location(ast.Call(func=name("bool"), args=[test], keywords=[]), node.test), node)
        returns = _contains_return(node)
        # a branch that may return carries the rest of the function with it
        tail = rest if returns else []
        env_true, env_false = dict(env), dict(env)
        ret_true = self.lower(node.body + tail, env_true)
        ret_false = self.lower(node.orelse + tail, env_false)
        if returns:
            if ret_true is None or ret_false is None:
                raise ControlFlowError(f"{self.ctx.function_name}() can reach its end without returning a "
                                       f"value on some path through this `if`", self.ctx.location(node))
            return self.merge_returns(condition, ret_true, ret_false), node
        self.merge_envs(condition, env, env_true, env_false, node)
        return None

    def merge_returns(self, condition, ret_true, ret_false):
        (true_values, true_node), (false_values, false_node) = ret_true, ret_false
        if len(true_values) != len(false_values):
            raise ControlFlowError(
                f"this return gives {len(false_values)} value(s) but the one at line {true_node.lineno} "
                f"gives {len(true_values)}; every path must return the same number of values",
                self.ctx.location(false_node))
        merged = []
        for index, (a, b) in enumerate(zip(true_values, false_values)):
            if ast.dump(a) == ast.dump(b):
                merged.append(a)
                continue
            select = copy_location(ast.IfExp(test=copy.deepcopy(condition), body=a, orelse=b), false_node)
            merged.append(self.define("ret" if len(true_values) == 1 else f"ret{index}", select, false_node))
        return merged

    def merge_envs(self, condition, env, env_true, env_false, node):
        for variable in sorted(set(env_true) | set(env_false)):
            a, b = env_true.get(variable), env_false.get(variable)
            if a is None or b is None or isinstance(a, _Unbound) or isinstance(b, _Unbound):
                env[variable] = _Unbound(variable, node)
            elif ast.dump(a) != ast.dump(b):
                select = copy_location(ast.IfExp(test=copy.deepcopy(condition), body=a, orelse=b), node)
                env[variable] = self.define(variable, select, node)
            else:
                env[variable] = a


def _contains_return(node) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))
