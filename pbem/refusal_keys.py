"""The refusal keys: a closed set per catalogue, checked by mypy where an error is raised.

A key names a refusal a player can read; its words are the catalogue's
(``templates/<catalogue>.txt.j2``, one template whose messages each language translates in
``pbem/locale/<lang>/LC_MESSAGES/pbem.po``), which words exactly these keys
(``tests/reports/test_catalogue.py``). A new refusal is a new key here, its wording in the
template and its translation in each language's catalogue; a mistyped key fails ``mypy``,
not a player's mail.
"""

from __future__ import annotations

from typing import Literal

# The rules engine's refusals (``IllegalCommandError``).
EngineKey = Literal[
    "abolish_one_card", "abolish_own", "abolish_two_cards", "actions_after_end_powers",
    "actions_used", "against_privilege", "agreed_end_off", "aid_no_power", "aid_target",
    "aid_twice", "aid_used", "alignment_absent", "alignment_no_opposite",
    "alignment_not_in_game", "alignment_not_reversible", "alignment_own_opposite",
    "alignment_present", "already_controlled", "amount_positive", "arrow_closed",
    "arrow_control_only", "attack_arrow_closed", "attack_money_source", "attacker_calls_off",
    "attacker_no_arrow", "attacker_powerless", "attacker_used", "attacks_itself",
    "bavarian_once", "bavarian_only", "bribery_arrow_closed", "cannot_counter", "card_pending",
    "card_to_self", "counter_only", "counter_own", "deal_actions", "deal_empty",
    "deal_illuminati", "deal_mid_attack", "deal_not_proposed", "deal_not_yours",
    "deal_with_self", "decline_own_offer", "espionage_target", "game_over", "gift_to_self",
    "gift_turn", "giver_lost_group", "goal_choice_closed", "group_not_given", "group_offered",
    "group_to_self", "hang_from_itself", "illuminati_dropped", "illuminati_moved", "immune",
    "joined_already", "lasers_target", "lasers_unusable", "leave_mid_attack", "money_committed",
    "money_follows_control", "money_short", "name_characters", "name_length", "name_order_word",
    "name_taken", "neutralize_own", "no_attack", "no_deal", "no_end_powers", "no_end_vote",
    "no_goal_choice", "no_offer", "no_offer_made", "no_open_arrow", "no_player",
    "no_special_waiting", "not_a_goal", "not_a_side", "not_active", "not_adjacent",
    "not_attackable", "not_dead", "not_held_by", "not_in_play", "not_in_structure", "not_open",
    "not_privileged", "not_uncontrolled", "offer_first", "offer_unanswered", "other_turn_start",
    "own_turn_start", "pass_late", "player_gone", "privilege_card_not_held", "privileged_gifts",
    "privileged_interfere", "privileged_only", "receiver_no_arrow", "recyclers_unusable",
    "sides_spend", "special_unanswered", "special_waiting", "target_not_in_play",
    "target_powerless", "transfer_same_card", "transfers_after_end_powers",
    "treasury_below_zero", "vote_mid_attack", "vote_winner_gone", "whispering_power",
    "wrong_phase"
]

# The service's own checks of an order (``ServiceRefusal``).
ServiceKey = Literal[
    "absence_backwards", "absence_over_game", "absence_overlaps", "absence_past",
    "absence_too_long", "after_end_turn", "after_roll", "attack_short", "attacker_paid",
    "defence_short", "defence_short_both", "defence_source", "game_over", "no_absence",
    "language_unknown", "no_player", "no_press", "no_standing", "no_window", "not_asked",
    "not_held", "not_your_turn", "not_yours", "out_of_game", "press_in_attack",
    "treasury_short", "turn_start_card"
]

# The order parser's reasons (``OrderSyntaxError``, name errors).
ParserKey = Literal[
    "aid_own_attack", "ambiguous_name", "below_minimum", "cannot_purpose", "card_needs",
    "control_only_clauses", "date_expected", "end_press_alone", "expected", "expected_after",
    "expected_after_word", "expected_or_end", "game_missing", "given_twice", "join_no_as",
    "join_no_game", "join_no_name", "join_no_prefer", "language_expected", "line_too_long",
    "lobby_form", "missing_at_end", "missing_before", "name_not_here", "negative",
    "no_counter_card", "no_name_given", "no_order", "no_start_line", "not_a_number",
    "not_whole", "odds_from", "one_copy", "password_missing", "pasted", "press_empty",
    "press_unended", "rule_line", "second_start", "second_start_line", "stray_quote",
    "takes_nothing", "takes_nothing_more", "too_large", "too_many_names", "too_tangled",
    "unclosed_quote", "unexpected_after_order", "unexpected_after_start", "unexpected_in",
    "unknown_name", "unknown_order", "unknown_zone", "unreadable", "wrapped", "wrong_kind",
    "zone_expected"
]

# The order parser's suggestions, named apart from the reason (``hint``).
ParserHint = Literal[
    "at_least", "close_quote", "did_you_mean", "end_press", "end_with_end", "keyword_instead",
    "keyword_meant", "leave_them_out", "name_kind_here", "no_such_name", "one_line",
    "one_order_a_line", "one_set", "only_these", "order_words", "press_begin", "press_body",
    "quote_each", "quote_name", "say_which", "start_form", "straight_quotes", "write_an_order",
    "write_as", "write_as_forms", "write_counter", "zone_example"
]

# An unreadable mail's reasons (``MailFormatError``).
MailKey = Literal[
    "damaged", "header_too_long", "no_orders", "too_big", "too_many_lines", "too_many_parts"
]
