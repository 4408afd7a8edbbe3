"""String functions: list_join, str_replace (+ strict/vstrict), str_split, digest, make_url."""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib import parse as urlparse

from simulator.template import budget
from simulator.template.functions import Function, ResourceView, resolve


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class ListJoin(Function):
    """``{list_join: [delimiter, [item, ...]]}`` (one list; items must be strings)."""

    __slots__ = ()

    #: From 2015-10-15 several lists may follow the delimiter and items may be maps/lists.
    multiple = False

    def check(self) -> None:
        """Arguments are ``[delimiter, list]`` (or more lists when ``multiple``)."""
        example = f'"{self.fn_name}": [" ", ["str1", "str2"]{" ..." if self.multiple else ""}]'
        if not isinstance(self.args, list):
            raise self.error(f'Incorrect arguments to "{self.fn_name}", should be: {example}')
        if len(self.args) < 2 or (not self.multiple and len(self.args) != 2):
            raise self.error(f'Incorrect arguments to "{self.fn_name}", should be: {example}')

    def _item(self, item: Any) -> str:
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        if self.multiple and isinstance(item, (dict, list)):
            return _json(item)
        kinds = "strings, maps or lists" if self.multiple else "strings"
        raise self.error(f"Items to join must be {kinds}, not {item!r:.200}")

    def result(self, view: ResourceView) -> str:
        """Join the items of every list with the delimiter."""
        delim = resolve(self.args[0], view)
        if not isinstance(delim, str):
            raise self.error(f'The "{self.fn_name}" delimiter must be a string')
        items: list[Any] = []
        for lst in resolve(self.args[1:], view):
            if lst is None:
                continue
            if not isinstance(lst, list):
                raise self.error(f'"{self.fn_name}" must operate on a list, not {lst!r:.200}')
            items.extend(lst)
        texts = [self._item(i) for i in items]
        length = sum(map(len, texts)) + len(delim) * max(0, len(texts) - 1)
        budget.check_length(self, length)
        return delim.join(texts)


class ListJoinMultiple(ListJoin):
    """``list_join`` from 2015-10-15: several lists; maps and lists are JSON-encoded."""

    __slots__ = ()
    multiple = True


class StrReplace(Function):
    """``{str_replace: {template: ..., params: {placeholder: value}}}``.

    Longer placeholders are replaced first; placeholders of equal length in
    sorted order. A replaced part is never scanned again.
    """

    __slots__ = ()

    #: Map and list values are JSON-encoded (2015-10-15 on); before, they are errors.
    json_values = False
    #: Every placeholder must occur in the template (str_replace_strict).
    strict = False
    #: Values must not be None or empty (str_replace_vstrict).
    allow_empty = True

    def check(self) -> None:
        """Arguments are a map with exactly ``template`` and ``params``."""
        args = self.args
        example = f"{self.fn_name}: {{template: 'This is var1', params: {{var1: a}}}}"
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map, e.g. {example}')
        if set(args) != {"template", "params"}:
            raise self.error(f'"{self.fn_name}" needs exactly "template" and "params": {example}')
        if not isinstance(args["params"], (dict, Function)):
            raise self.error(f'"{self.fn_name}" params must be a map')

    def _value(self, value: Any, key: str) -> str:
        if value is None or (isinstance(value, (str, list, dict)) and len(value) == 0):
            if not self.allow_empty:
                raise self.error(
                    f'"{self.fn_name}" has an undefined or empty value for param "{key}"'
                )
            if value is None:
                return ""
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, (str, int, float)):
            return str(value)
        if self.json_values and isinstance(value, (dict, list)):
            return _json(value)
        kinds = "strings, numbers, lists or maps" if self.json_values else "strings or numbers"
        raise self.error(f'"{self.fn_name}" params must be {kinds}; param "{key}" is not')

    def result(self, view: ResourceView) -> str:
        """Substitute every placeholder."""
        text = resolve(self.args["template"], view)
        params = resolve(self.args["params"], view)
        if not isinstance(text, str):
            raise self.error(f'"{self.fn_name}" template must be a string')
        if not isinstance(params, dict):
            raise self.error(f'"{self.fn_name}" params must be a map')
        for key in params:
            if not isinstance(key, str):
                raise self.error(f'"{self.fn_name}" param placeholders must be strings')
        keys = sorted(sorted(params), key=len, reverse=True)
        values = {k: self._value(params[k], k) for k in keys}
        used: set[str] = set()

        def replace(pieces: list[str], remaining: list[str]) -> list[str]:
            if not remaining:
                return pieces
            key, rest = remaining[0], remaining[1:]
            out = []
            for piece in pieces:
                parts = piece.split(key) if key else [piece]
                if len(parts) > 1:
                    used.add(key)
                out.append(values[key].join(replace(parts, rest)))
            return out

        def measure(piece: str, remaining: list[str]) -> int:
            if not remaining:
                return len(piece)
            key, rest = remaining[0], remaining[1:]
            parts = piece.split(key) if key else [piece]
            return (len(parts) - 1) * len(values[key]) + sum(measure(p, rest) for p in parts)

        budget.check_length(self, measure(text, keys))  # before the text is built
        result = replace([text], keys)[0]
        if self.strict:
            missing = [k for k in keys if k not in used]
            if missing:
                raise self.error(
                    f"The following params were not found in the template: {','.join(missing)}"
                )
        return result


class StrReplaceJson(StrReplace):
    """``str_replace`` from 2015-10-15: map and list values are JSON-encoded."""

    __slots__ = ()
    json_values = True


class StrReplaceStrict(StrReplaceJson):
    """``str_replace_strict``: every param must occur in the template."""

    __slots__ = ()
    strict = True


class StrReplaceVeryStrict(StrReplaceStrict):
    """``str_replace_vstrict``: strict, and no param may be None or empty."""

    __slots__ = ()
    allow_empty = False


class StrSplit(Function):
    """``{str_split: [delimiter, string, (index)]}``."""

    __slots__ = ()

    def check(self) -> None:
        """Arguments are a list of two or three."""
        if not isinstance(self.args, list) or len(self.args) not in (2, 3):
            raise self.error(
                f'Incorrect arguments to "{self.fn_name}", should be: '
                f'"{self.fn_name}": [",", "apples,pears", <index>]'
            )

    def result(self, view: ResourceView) -> Any:
        """Split the string; return the list or the item at the index."""
        args = resolve(self.args, view)
        delim, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(delim, str) or not delim:
            raise self.error(f'The "{self.fn_name}" delimiter must be a non-empty string')
        if not isinstance(text, str):
            raise self.error(f'"{self.fn_name}" can only split a string, not {text!r:.200}')
        parts = text.split(delim)
        if len(args) == 2:
            return parts
        try:
            index = int(args[2])
        except (TypeError, ValueError):
            raise self.error(f'Incorrect index to "{self.fn_name}": {args[2]!r}') from None
        if not 0 <= index < len(parts):
            raise self.error(
                f'Incorrect index to "{self.fn_name}": should be between 0 and {len(parts) - 1}'
            )
        return parts[index]


class Digest(Function):
    """``{digest: [algorithm, value]}``: the hex digest of a string."""

    __slots__ = ()

    ALGORITHMS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")

    def check(self) -> None:
        """Arguments are a list of two; a literal algorithm must be known."""
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Function "{self.fn_name}" usage: ["<algorithm>", "<value>"]')
        algo = self.args[0]
        if isinstance(algo, str) and algo.lower() not in self.ALGORITHMS:
            raise self.error(f"Algorithm must be one of {', '.join(self.ALGORITHMS)}")

    def result(self, view: ResourceView) -> str:
        """Hash the value."""
        algo, value = resolve(self.args, view)
        if not isinstance(algo, str) or not isinstance(value, str):
            raise self.error(f'Arguments to function "{self.fn_name}" must be strings')
        if algo.lower() not in self.ALGORITHMS:
            raise self.error(f"Algorithm must be one of {', '.join(self.ALGORITHMS)}")
        return hashlib.new(algo.lower(), value.encode("utf-8")).hexdigest()


class MakeURL(Function):
    """``{make_url: {scheme, username, password, host, port, path, query, fragment}}``."""

    __slots__ = ()

    KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")

    def check(self) -> None:
        """Arguments are a map of known keys with plausible literal values."""
        if not isinstance(self.args, dict):
            raise self.error(f'The arguments to "{self.fn_name}" must be a map')
        unknown = sorted(set(self.args) - set(self.KEYS), key=str)
        if unknown:
            raise self.error(
                f'Invalid arguments to "{self.fn_name}": {", ".join(map(str, unknown))}'
            )
        self._check_values(self.args)

    def _check_values(self, args: dict[str, Any]) -> None:
        for key, value in args.items():
            if isinstance(value, Function) or value is None:
                continue
            if key == "query":
                if not isinstance(value, dict):
                    raise self.error(f'The "query" argument to "{self.fn_name}" must be a map')
            elif key == "port":
                try:
                    port = int(value)
                except (TypeError, ValueError):
                    raise self.error(f'Invalid URL port "{value}" for {self.fn_name}') from None
                if isinstance(value, bool) or not 0 < port <= 65535:
                    raise self.error(f"Invalid URL port {value}, must be in range 1-65535")
            elif not isinstance(value, str):
                raise self.error(f'The "{key}" argument to "{self.fn_name}" must be a string')

    def result(self, view: ResourceView) -> str:
        """Assemble a correctly escaped URL."""
        args = resolve(self.args, view)
        self._check_values(args)
        scheme = args.get("scheme") or ""
        if ":" in scheme:
            raise self.error('URL "scheme" should not contain ":"')
        netloc = ""
        user = urlparse.quote(args.get("username") or "", safe="")
        password = urlparse.quote(args.get("password") or "", safe="")
        if user or password:
            netloc = user + (":" + password if password else "") + "@"
        host = args.get("host") or ""
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = urlparse.quote(host, safe=":")
        netloc += f"[{host}]" if ":" in host else host
        port = args.get("port")
        if port not in (None, ""):
            netloc += f":{int(port)}"
        path = urlparse.quote(args.get("path") or "")
        query = urlparse.urlencode(args.get("query") or {}).replace("%2F", "/")
        fragment = urlparse.quote(args.get("fragment") or "")
        return urlparse.urlunsplit((scheme, netloc, path, query, fragment))
