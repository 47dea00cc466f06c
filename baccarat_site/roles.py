"""Staff roles: one group per duty, each with just the permissions that duty needs (least privilege).

- **Table operators** run the floor: variants and their bets, tables (pause, resume, cancel, close), rounds,
  shoes and bets (read-only), a live table's supervisor calls (seen, not answered: they neither deal nor
  supervise a live round), the live floor and the tables report, the table chat (delete a message, mute a
  player: ``tables.moderate_chat``). They move no money.
- **Cashiers** move money: deposits, withdrawals and adjustments (``wallets.move_money``), and read the wallets
  and the ledger. A movement over ``settings.MONEY_APPROVAL_THRESHOLD`` becomes a request that another staff
  member with ``wallets.approve_money`` must approve.
- **Supervisors** hold both duties and approve money requests; they alone answer a live table's supervisor
  call (resume or void the round: ``tables.supervise_table``), never one they dealt or raised themselves; they
  also act on players: suspend, reinstate, close an account (``accounts.suspend_player``), write staff notes,
  and they alone set a player's personal maximum stake (``accounts.PlayerLimit``: view, add, change; never
  delete, a limit is cleared by a change with its reason).
- **Dealers** deal live tables from the dealer's console (``tables.deal_table``: scan cards, burn, the cut card,
  call the supervisor) and nothing else: no admin page, no money.
- **Auditors** read everything (every ``view_*`` permission of the casino's apps, the audit trail, the
  reports) and change nothing.

No one moves money into or out of their own wallet, whatever their role (``wallets.services``). Staff do not play:
a staff account's wallet is frozen (:func:`is_staff_member`, read by ``wallets.services`` with the wallet's lock).
No one holds two roles that :data:`CONFLICTS` keeps apart (Dealers or Auditors with any other, Supervisors with
Cashiers): adding such a group is refused (:class:`RoleConflict`, ``accounts.signals.groups_changing``, and the
user's admin form).

``ROLES`` is the one statement of who may do what. ``manage.py migrate`` makes the groups (migration
``accounts.0002_staff_roles``) and, after every migrate, sets each group's permissions to exactly what is
listed here (:func:`sync_roles`, on ``post_migrate``), so a permission added by a new model reaches its roles
and one granted by hand is taken back at the next release. Plain data: it imports no model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps as live_apps
from django.conf import settings
from django.db.models import Q

from baccarat_site.errors import DomainError

TABLE_OPERATORS = "Table operators"
CASHIERS = "Cashiers"
SUPERVISORS = "Supervisors"
AUDITORS = "Auditors"
DEALERS = "Dealers"

#: Apps whose every ``view_*`` permission an auditor holds.
AUDITED_APPS = ("tables", "wallets", "auditlog", "accounts", "auth")

_ALL = ("view", "add", "change", "delete")

#: ``{app_label: {model: (action or custom codename, …)}}``: an action ``a`` means the codename ``a_<model>``;
#: a codename containing an underscore is taken as it is (custom permissions such as ``move_money``).
Grants = dict[str, dict[str, tuple[str, ...]]]

_TABLES: Grants = {
    "tables": {
        "variant": _ALL,
        "variantbet": _ALL,
        "table": ("view", "add", "change"),
        # Live tables: the calls for a supervisor (tables.services.dealing), seen on the live floor.
        "supervisorcall": ("view",),
        "tablelimit": _ALL,
        "shoe": ("view",),
        "round": ("view",),
        "bet": ("view",),
        # Risk alerts on the live floor (tables.services.risk): seen and acknowledged on the floor.
        "riskalert": ("view", "acknowledge_riskalert"),
        # Table chat (tables.services.chat): read it, delete a message, mute a player (audited).
        "chatmessage": ("view", "moderate_chat"),
        "chatmute": ("view",),
    },
}

_MONEY: Grants = {
    "wallets": {
        "wallet": ("view", "move_money"),
        "ledgertransaction": ("view",),
        "ledgerentry": ("view",),
        "moneyrequest": ("view",),
    },
}

_APPROVALS: Grants = {
    # Money alerts (wallets.services: movements just under the approval threshold, again and again): seen and
    # acknowledged by supervisors.
    "wallets": {
        "wallet": ("approve_money",),
        "moneyrequest": ("view",),
        "moneyalert": ("view", "acknowledge_moneyalert"),
    },
    "auth": {"user": ("view",)},
    # Who signed in from where: what a linked-accounts alert rests on. Suspending, reinstating, closing players.
    # The limits players set on themselves, and their history (read-only: only the player changes them).
    "accounts": {
        "signin": ("view",),
        "restriction": ("view", "suspend_player"),
        "player": ("view",),
        "playernote": ("view", "add"),
        "playlimit": ("view",),
    },
}

_PLAYERS: Grants = {
    "accounts": {"playerlimit": ("view", "add", "change")},
}


def _merge(*grants: Grants) -> Grants:
    out: dict[str, dict[str, set[str]]] = {}
    for grant in grants:
        for app, models in grant.items():
            for model, actions in models.items():
                out.setdefault(app, {}).setdefault(model, set()).update(actions)
    return {app: {model: tuple(sorted(acts)) for model, acts in models.items()} for app, models in out.items()}


#: Role → the grants it holds. Auditors hold, besides these, every view permission of ``AUDITED_APPS``.
ROLES: dict[str, Grants] = {
    TABLE_OPERATORS: _TABLES,
    CASHIERS: _MONEY,
    SUPERVISORS: _merge(_TABLES, _MONEY, _APPROVALS, _PLAYERS, {"tables": {"table": ("supervise_table",)}}),
    AUDITORS: {},
    DEALERS: {"tables": {"table": ("deal_table",)}},
}


def codenames(role: str) -> set[tuple[str, str]]:
    """``{(app_label, codename)}`` a role is granted explicitly (auditors' views come on top, see ``sync_roles``)."""
    wanted = set()
    for app, models in ROLES[role].items():
        for model, actions in models.items():
            for action in actions:
                wanted.add((app, action if "_" in action else f"{action}_{model}"))
    return wanted


def sync_roles(apps: Any = None, using: str = "default") -> None:
    """Make every role's group hold exactly its permissions (creating the group if needed).

    ``apps`` is a migration's historical registry or None for the live one. A listed permission that does not
    exist (yet) is skipped: its model's migration has not run; the next migrate grants it.
    """
    if apps is None:
        apps = live_apps
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    permissions = permission_model.objects.using(using).select_related("content_type")
    by_key = {(p.content_type.app_label, p.codename): p for p in permissions}
    for role in ROLES:
        keys = codenames(role)
        if role == AUDITORS:
            keys |= {key for key in by_key if key[0] in AUDITED_APPS and key[1].startswith("view_")}
        group, _ = group_model.objects.using(using).get_or_create(name=role)
        group.permissions.set([by_key[key] for key in sorted(keys) if key in by_key])


def sync_roles_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """``post_migrate`` receiver (connected for the last app, when every app's permissions exist)."""
    sync_roles(using=using)


# ── who is staff, and roles that cannot be held together ─────────────────────────────────────────────────
# A separate block from ROLES (which says what each role may do): what follows says who counts as staff and
# which roles one person may not combine. Nothing here grants or takes away a permission.

#: Every staff group: a member of any of them is staff, whatever ``is_staff`` says.
STAFF_GROUPS: tuple[str, ...] = tuple(ROLES)

#: Role → the roles its holder may not also hold (separation of duties). Dealers deal and nothing else; Auditors
#: check everyone, so hold nothing they check; a Supervisor approves what a Cashier asks for and resumes or voids
#: what a Dealer dealt. Symmetric: :data:`CONFLICTS` is closed under "a conflicts with b ⇒ b conflicts with a".
_CONFLICTING_PAIRS: tuple[tuple[str, str], ...] = (
    *((DEALERS, other) for other in STAFF_GROUPS if other != DEALERS),
    *((AUDITORS, other) for other in STAFF_GROUPS if other != AUDITORS),
    (SUPERVISORS, CASHIERS),
)


def _conflicts() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {role: set() for role in STAFF_GROUPS}
    for a, b in _CONFLICTING_PAIRS:
        out[a].add(b)
        out[b].add(a)
    return {role: frozenset(others) for role, others in out.items()}


CONFLICTS: dict[str, frozenset[str]] = _conflicts()


class RoleConflict(DomainError):
    """A group that would give one person two roles that :data:`CONFLICTS` keeps apart; nothing was added."""

    code = "role_conflict"


def role_conflicts(names: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs of conflicting roles among ``names`` (group names; other groups are ignored), each once, sorted."""
    held = sorted(set(names))
    return [(a, b) for i, a in enumerate(held) for b in held[i + 1 :] if b in CONFLICTS.get(a, ())]


def role_conflicts_check(names: Iterable[str], *, who: str = "") -> None:
    """Raise :class:`RoleConflict`, naming each conflict (and ``who``), when ``names`` hold conflicting roles."""
    pairs = role_conflicts(names)
    if pairs:
        raise RoleConflict(role_conflict_message(pairs, who=who))


def role_conflict_message(pairs: Iterable[tuple[str, str]], *, who: str = "") -> str:
    """A sentence naming each conflict, e.g. "Supervisors and Cashiers cannot be held by one person"."""
    named = "; ".join(f"{a} and {b}" for a, b in pairs)
    whom = f" for {who}" if who else ""
    return (
        f"Conflicting roles{whom}: {named} cannot be held by one person (separation of duties). "
        "Remove one role first, or give the other to someone else."
    )


def is_staff_member(user_or_id: Any) -> bool:
    """Whether an account is staff: ``is_staff`` or ``is_superuser`` set, or a member of any staff group
    (:data:`STAFF_GROUPS`). Takes a user or a user id; reads the database (one query), so a user changed
    since it was loaded is judged as it is now. Staff do not gamble with the casino: their wallets are frozen
    (``wallets.services``) and they do not bet."""
    user_id = getattr(user_or_id, "pk", user_or_id)
    if user_id is None:
        return False
    user_model = live_apps.get_model(settings.AUTH_USER_MODEL)
    return bool(
        user_model._default_manager.filter(pk=user_id)
        .filter(Q(is_staff=True) | Q(is_superuser=True) | Q(groups__name__in=STAFF_GROUPS))
        .exists()
    )
