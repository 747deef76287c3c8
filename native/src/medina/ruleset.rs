//! Medina's rule flags (`src/tabletop/games/medina/ruleset.py`): [`Rules`], its named
//! presets, and the parsing of the `tower_values` and `neutral_domes` variants.

/// The rule flags that change play or scoring (`ruleset.py`; `hide_supplies` does not,
/// and the drawn `well` and `start_square` are parts of the position).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// 1 (2001) or 2 (2014).
    pub edition: u8,
    pub abandoned_palace_claimable: bool,
    pub new_chain_may_touch_one: bool,
    pub tower_reconnect_per_run: bool,
    /// Tower tile value by tower slot (`A1`, `R1`, `A13`, `R13`).
    pub tower_values: [i64; 4],
    pub last_player_by_supply: bool,
    pub dome_obligation_lookahead: bool,
    pub start_merchant_anywhere: bool,
    /// A11: merchants next to a palace's stables score.
    pub stable_adjacency_scores: bool,
    /// E11: the last able player must place an own dome (off: no obligation).
    pub last_player_dome_obligation: bool,
    /// E12b: the obligation is decided again after the turn's first placement.
    pub obligation_recheck: bool,
    /// E13: a tie is won by the largest palace (else shared).
    pub tie_break_largest_palace: bool,
    /// Neutral domes per seat with 2, 3, 4 players (E1; second edition only).
    pub neutral_domes: [u8; 3],
    /// E5: the well's bonus squares are the 12 of the plaza ring (else the cross of 4).
    pub well_bonus_plaza_ring: bool,
    pub neutral_claims_tiles: bool,
    pub neutral_dome_any_unowned: bool,
    pub tea_spend_when_stuck: bool,
    pub tea_usable_turn_received: bool,
    pub tower_events_claim_only: bool,
    pub neutral_dome_satisfies_obligation: bool,
}

impl Default for Rules {
    /// The spec's default ruleset (tower values `A13:1,R1:2,R13:3,A1:4`).
    fn default() -> Rules {
        Rules {
            edition: 1,
            abandoned_palace_claimable: false,
            new_chain_may_touch_one: false,
            tower_reconnect_per_run: false,
            tower_values: [4, 2, 1, 3],
            last_player_by_supply: false,
            dome_obligation_lookahead: true,
            start_merchant_anywhere: false,
            stable_adjacency_scores: true,
            last_player_dome_obligation: true,
            obligation_recheck: false,
            tie_break_largest_palace: false,
            neutral_domes: [2, 1, 0],
            well_bonus_plaza_ring: false,
            neutral_claims_tiles: true,
            neutral_dome_any_unowned: false,
            tea_spend_when_stuck: false,
            tea_usable_turn_received: true,
            tower_events_claim_only: false,
            neutral_dome_satisfies_obligation: false,
        }
    }
}

impl Rules {
    /// A named preset (`ruleset.PRESETS`), or `None`.
    pub fn preset(name: &str) -> Option<Rules> {
        let boardspace = Rules {
            abandoned_palace_claimable: true,
            new_chain_may_touch_one: true,
            tower_reconnect_per_run: true,
            dome_obligation_lookahead: false,
            obligation_recheck: true,
            ..Rules::default()
        };
        match name {
            "default" => Some(Rules::default()),
            "boardspace" => Some(boardspace),
            "boardspace_legacy" => Some(Rules {
                stable_adjacency_scores: false,
                ..boardspace
            }),
            "second_edition" => Some(Rules {
                edition: 2,
                ..Rules::default()
            }),
            "boardspace_v2" => Some(Rules {
                edition: 2,
                tea_spend_when_stuck: true,
                neutral_dome_satisfies_obligation: true,
                ..boardspace
            }),
            _ => None,
        }
    }

    /// Whether these are the second edition's rules.
    #[inline]
    pub fn second(&self) -> bool {
        self.edition == 2
    }
}

/// Parses a `tower_values` string (`"A13:1,R1:2,R13:3,A1:4"`) as `ruleset.parse_tower_values`:
/// a corner may be named as on either board (`R1` or `P1`, `A13` or `A12`, `R13` or `P12`).
pub fn parse_tower_values(text: &str) -> Result<[i64; 4], String> {
    const ORDER: [&str; 4] = ["A1", "R1", "A13", "R13"];
    const ORDER_2P: [&str; 4] = ["A1", "P1", "A12", "P12"];
    let mut values: [Option<i64>; 4] = [None; 4];
    let bad = || {
        format!(
            "bad variant 'tower_values': {text:?} (expected each of A1, R1, A13, R13 once, e.g. 'A13:1,R1:2,R13:3,A1:4')"
        )
    };
    for part in text.split(',') {
        let (name, value) = part.split_once(':').ok_or_else(bad)?;
        let name = name.trim().to_ascii_uppercase();
        let slot = ORDER
            .iter()
            .position(|n| *n == name)
            .or_else(|| ORDER_2P.iter().position(|n| *n == name))
            .ok_or_else(bad)?;
        let value = value.trim();
        if values[slot].is_some() || value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        values[slot] = Some(value.parse::<i64>().map_err(|_| bad())?);
    }
    let mut out = [0; 4];
    for (o, v) in out.iter_mut().zip(values) {
        *o = v.ok_or_else(|| format!("bad variant 'tower_values': {text:?} names fewer than the 4 towers"))?;
    }
    Ok(out)
}

/// Parses a `neutral_domes` string (`"2:2,3:1,4:0"`) as `ruleset.parse_neutral_domes`:
/// neutral domes per seat with 2, 3 and 4 players.
pub fn parse_neutral_domes(text: &str) -> Result<[u8; 3], String> {
    let bad = || format!("bad variant 'neutral_domes': {text:?} (expected a count for 2, 3 and 4 players)");
    let mut counts: [Option<u8>; 3] = [None; 3];
    for part in text.split(',') {
        let (players, count) = part.split_once(':').ok_or_else(bad)?;
        let slot = match players.trim() {
            "2" => 0,
            "3" => 1,
            "4" => 2,
            _ => return Err(bad()),
        };
        let count = count.trim();
        if counts[slot].is_some() || count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        counts[slot] = Some(count.parse::<u8>().map_err(|_| bad())?);
    }
    let mut out = [0; 3];
    for (o, c) in out.iter_mut().zip(counts) {
        *o = c.ok_or_else(bad)?;
    }
    Ok(out)
}
