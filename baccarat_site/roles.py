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

No one moves money into or out of their own wallet, whatever their role (``wallets.services``).

``ROLES`` is the one statement of who may do what. ``manage.py migrate`` makes the groups (migration
``accounts.0002_staff_roles``) and, after every migrate, sets each group's permissions to exactly what is
listed here (:func:`sync_roles`, on ``post_migrate``), so a permission added by a new model reaches its roles
and one granted by hand is taken back at the next release. Plain data: it imports no model.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as live_apps

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
    "wallets": {"wallet": ("approve_money",), "moneyrequest": ("view",)},
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
