"""The code generator's rules for the math helpers it copies into generated modules
(passes/portable_math.py, passes/float32_math.py), checked on a helper's source."""
import ast
import inspect
import textwrap

# tl.math functions the helpers may call: the interpreter has each of them
TL_MATH = {"abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2", "rsqrt",
           "sin", "sqrt", "sqrt_rn", "umulhi"}


def local_names(fn_node):
    names = {a.arg for a in fn_node.args.args}
    for node in ast.walk(fn_node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


# the functions whose leading results are block-uniform booleans, and how many
BLOCK_UNIFORM_RESULTS = {"portable_sides": 2, "portable_sides_and_any": 3, "portable_huge_sides": 2,
                         "portable_hankel_sides": 2, "f32_hankel_sides": 2}


def block_uniform_names(fn_node) -> set:
    """Names bound by `a, b = portable_sides(mask)`, `a, b, c = portable_sides_and_any(mask, other)` or the first
    two of `a, b, ... = portable_hankel_sides(x, near)` (f32_hankel_sides, portable_huge_sides) in the function's
    body: block-uniform booleans."""
    return {target.id for statement in fn_node.body if isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id in BLOCK_UNIFORM_RESULTS and isinstance(statement.targets[0], ast.Tuple)
            for target in statement.targets[0].elts[:BLOCK_UNIFORM_RESULTS[statement.value.func.id]]
            if isinstance(target, ast.Name)}


def is_block_uniform_test(test, uniform_names=frozenset()) -> bool:
    """`portable_any(mask)`, a name from portable_sides (`uniform_names`), or `a | b` of such tests."""
    if isinstance(test, ast.BinOp) and isinstance(test.op, ast.BitOr):
        return is_block_uniform_test(test.left, uniform_names) and is_block_uniform_test(test.right, uniform_names)
    return ((isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "portable_any")
            or (isinstance(test, ast.Name) and test.id in uniform_names))


def is_block_uniform_branch(node, uniform_names=frozenset()) -> bool:
    """`if portable_any(mask):` (or `if name:` with `name` from portable_sides, `uniform_names`, or `if a | b:`
    of such tests) with no else and only assignments in its body: a branch that a whole block takes or skips
    alike (portable_math.portable_any and portable_sides), never an `if` on an element's value."""
    if not isinstance(node, ast.If) or node.orelse or not all(isinstance(s, ast.Assign) for s in node.body):
        return False
    return is_block_uniform_test(node.test, uniform_names)


def assert_follows_generator_rules(fn, helpers: set, tl_attributes: set):
    """One-line docstring; straight-line code (but block-uniform branches, is_block_uniform_branch, whose
    names are all bound before them); no unary minus on a tensor; calls only `helpers` (and
    float('inf'/'nan')); reads no module-level name but `tl` and `helpers`; uses only `tl_attributes`
    of tl and TL_MATH of tl.math."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    (node,) = tree.body
    doc = ast.get_docstring(node)
    assert doc and "\n" not in doc, "one-line docstring naming the method"
    banned = (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.Lambda, ast.ListComp, ast.GeneratorExp,
              ast.DictComp, ast.SetComp, ast.IfExp, ast.BoolOp, ast.Global, ast.Nonlocal, ast.FunctionDef)
    uniform_names = block_uniform_names(node)
    for sub in ast.walk(node):
        allowed = sub is node or (is_block_uniform_branch(sub, uniform_names) and sub in node.body)
        assert not isinstance(sub, banned) or allowed, f"{type(sub).__name__} at line {sub.lineno}"
        if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub):
            # Triton 3.6 lowers -x to 0 - x, which loses the sign of -0.0: write x * -1.0
            assert isinstance(sub.operand, ast.Constant), f"unary minus on a tensor at line {sub.lineno}"
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            assert sub.func.id == "float" or sub.func.id in helpers, sub.func.id
            if sub.func.id == "float":
                assert [ast.literal_eval(a) for a in sub.args] in (["inf"], ["nan"], ["-inf"])
    allowed = local_names(node) | {"tl", "float"} | set(helpers)
    used = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}
    assert used <= allowed, used - allowed
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "tl":
            assert sub.attr in tl_attributes, sub.attr
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "math":
            assert sub.attr in TL_MATH, sub.attr
    assert_branch_results_bound_before(node)


def assert_branch_results_bound_before(fn_node):
    """Each name a block-uniform branch assigns that code after it reads is bound before the branch too
    (Triton's compiled `if` needs a value of the same type on the path that skips it)."""
    bound = {a.arg for a in fn_node.args.args}
    uniform_names = block_uniform_names(fn_node)
    for position, statement in enumerate(fn_node.body):
        if is_block_uniform_branch(statement, uniform_names):
            later = {n.id for rest in fn_node.body[position + 1:] for n in ast.walk(rest)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            assigned = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            assert assigned & later <= bound, f"line {statement.lineno}: {sorted((assigned & later) - bound)} unbound without the branch"
        bound |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
