"""Interactive terminal play: any mix of human and bot seats on one terminal.

The loop only uses the game protocol and the game's text hooks, so it serves every game.
Input and output go through injectable functions so tests can script a whole game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tabletop.ai.agent import Agent
from tabletop.ai.analysis import hint
from tabletop.core.errors import ConfigError, IllegalMoveError, InvalidMoveError, count_of, reason_of
from tabletop.core.protocol import Move, State
from tabletop.core.record import GameRecord, PlayerInfo

HELP = """Commands:
  <move>            play a move in the game's notation (see docs/notation.md)
  moves [FILTER]    list the legal moves; FILTER is a kind (e.g. stone, dome) or a prefix
  board             draw the board again
  score             show the score breakdown
  undo              take back your last action of this turn
  hint [LEVEL]      a bot's suggested turn and its estimated value (docs/analysis.md);
                    LEVEL is any bot spec, e.g. greedy (the default) or mcts:2
  save FILE         save the game so far as a record
  quit              stop the game (you are offered to save it)
  help              this text"""


@dataclass
class TerminalGame:
    """One game on the terminal.

    Attributes:
        initial: the initial state.
        seats: per seat, ``None`` for a human or the agent that plays it.
        players: names and agent specs, as written to the record.
        ask: reads one line of input given a prompt; raises EOFError at the end of input.
        say: prints one block of text.
        color: whether boards are drawn with ANSI colours.
        hint_level: the bot that answers ``hint`` without a level.
    """

    initial: State
    seats: Sequence[Agent | None]
    players: Sequence[PlayerInfo]
    ask: Callable[[str], str] = input
    say: Callable[[str], None] = print
    color: bool = False
    hint_level: str = "greedy"
    moves: list[Move] = field(default_factory=list)
    states: list[State] = field(default_factory=list)

    def record(self) -> GameRecord:
        """The game so far as a record."""
        return GameRecord.from_states(self.initial, self.moves, self.players)

    def play(self) -> bool:
        """Plays until the game ends or a human quits.  Returns whether it ended."""
        self.states = [self.initial]
        game = self.initial.game
        self.say(game.render_text(self.initial, color=self.color))
        while not self.state.is_terminal():
            seat = self.state.current_player
            agent = self.seats[seat]
            if agent is None:
                move = self._ask_move(seat)
                if move is None:
                    return False
            else:
                try:
                    move = agent.choose_move(self.state)
                except KeyboardInterrupt:
                    # Ctrl-C while a bot thinks stops the game as it does at a prompt:
                    # the moves so far stay in the record, which the caller offers to save.
                    self.say(f"\nStopped while {self._name(seat)} was thinking.")
                    return False
                self.say(f"{self._name(seat)} plays {self.state.move_to_str(move)}")
            self._apply(move)
        self.say(game.render_text(self.state, color=self.color))
        self.say(game.describe_score(self.state))
        outcome = self.state.outcome()
        if outcome is not None:
            winners = " and ".join(self._name(w) for w in outcome.winners)
            verb = "share the win" if len(outcome.winners) > 1 else "wins"
            reason = outcome.termination.replace("_", " ")
            self.say(f"Game over ({reason}). {winners} {verb} with {count_of(max(outcome.scores), 'point')}.")
        return True

    @property
    def state(self) -> State:
        """The current state."""
        return self.states[-1]

    def _name(self, seat: int) -> str:
        colors = self.initial.game.seat_colors(self.initial.num_players)
        return f"{self.players[seat].name} ({colors[seat]})"

    def _apply(self, move: Move) -> None:
        before = self.state.scores()
        after_state = self.state.apply(move)
        self.moves.append(move)
        self.states.append(after_state)
        after = after_state.scores()
        gains = [f"{self._name(i)} +{a - b}" for i, (b, a) in enumerate(zip(before, after, strict=True)) if a != b]
        if gains:
            totals = ", ".join(f"{p.name} {s}" for p, s in zip(self.players, after, strict=True))
            self.say(f"Scored: {', '.join(gains)}.  Scores: {totals}")

    def _ask_move(self, seat: int) -> Move | None:
        game = self.state.game
        self.say(game.render_text(self.state, color=self.color))
        while True:
            try:
                line = self.ask(f"{self._name(seat)}> ").strip()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return None
            if not line:
                continue
            word, _, rest = line.partition(" ")
            command = word.lower()
            if command in ("help", "?"):
                self.say(HELP)
            elif command == "moves":
                self.say(self._list_moves(rest.strip()))
            elif command == "board":
                self.say(game.render_text(self.state, color=self.color))
            elif command == "score":
                self.say(game.describe_score(self.state))
            elif command == "undo":
                self._undo(seat)
            elif command == "hint":
                self.say(self._hint(rest.strip() or self.hint_level))
            elif command == "save":
                self._save(rest.strip())
            elif command in ("quit", "exit"):
                return None
            else:
                try:
                    move = self.state.parse_move(line)
                except InvalidMoveError as exc:
                    self.say(f"Not a move: {exc}.  Type 'moves' to list legal moves, 'help' for commands.")
                    continue
                if not self.state.is_legal(move):
                    try:
                        self.state.apply(move)
                    except IllegalMoveError as exc:
                        # The engine's reason alone: the move was just typed, and "illegal move" twice says nothing.
                        self.say(f"Illegal: {reason_of(exc) or exc}")
                        continue
                return move

    def _list_moves(self, text_filter: str) -> str:
        legal = self.state.legal_moves()
        if text_filter in self.state.legal_kinds():
            chosen = list(self.state.legal_moves_of_kind(text_filter))
        else:
            chosen = [m for m in legal if self.state.move_to_str(m).startswith(text_filter)]
        if not chosen:
            kinds = ", ".join(self.state.legal_kinds())
            return f"No legal move matches {text_filter!r}. Legal kinds now: {kinds}."
        texts = [self.state.move_to_str(m) for m in chosen]
        return f"{len(texts)} legal moves:\n" + _columns(texts)

    def _hint(self, level: str) -> str:
        """The bot's suggested turn from here, or why there is none."""
        try:
            suggestion = hint(self.state, level, seed=self.state.ply)
        except ConfigError as exc:
            return f"No hint: {exc}"
        return (
            f"Hint ({suggestion.level}): {' '.join(suggestion.actions)}; "
            f"your estimated margin then {suggestion.value:+.1f} points (now {suggestion.current:+.1f})."
        )

    def _undo(self, seat: int) -> None:
        if len(self.states) < 2:
            self.say("Nothing to undo.")
            return
        previous = self.states[-2]
        if previous.current_player != seat or previous.turn != self.state.turn:
            self.say("You can only take back your own actions of this turn.")
            return
        self.states.pop()
        self.moves.pop()
        self.say("Taken back.")
        self.say(previous.game.render_text(previous, color=self.color))

    def _save(self, path: str) -> None:
        if not path:
            self.say("Usage: save FILE")
            return
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(self.record().dumps())
        except OSError as exc:
            self.say(f"Could not save: {exc}")
        else:
            self.say(f"Saved {len(self.moves)} actions to {path}")


def _columns(items: Sequence[str], width: int = 100) -> str:
    cell = max(len(i) for i in items) + 2
    per_line = max(1, width // cell)
    lines = ["".join(i.ljust(cell) for i in items[k : k + per_line]).rstrip() for k in range(0, len(items), per_line)]
    return "\n".join(lines)
