//! The policy and value network inside the search (issue #40): a small fully connected
//! network over the research encoding's observation, evaluated in Rust.
//!
//! The definition is `docs/bots.md`'s ("The network in the search"), whose readable form is
//! `src/tabletop/ai/network.py` (`PolicyValueNetwork.forward`): a trunk of ReLU layers
//! `h_{i+1} = relu(h_i @ w{i} + b{i})`, a policy head `h @ policy_w + policy_b` (one logit
//! per action id, softmax over the legal actions only) and a value head
//! `softmax(h @ value_w + value_b)` (one win share per seat, RELATIVE to the seat to act:
//! index 0 is the seat to act, 1 the next seat, ...).
//!
//! Two things make it fast where the search calls it, neither changing the function:
//! - the first layer adds only the rows of `w0` whose input is not zero (most of an
//!   observation's planes are one-hot and zero almost everywhere, and the first layer is
//!   most of the network's weights);
//! - the policy head computes the logits of the legal actions only (a column of
//!   `policy_w` each, stored as rows here).
//!
//! The dense layers after the first are matrix products of the batch by `ndarray`
//! (`matrixmultiply`'s sgemm): see docs/bots.md ("The network in the search") for the
//! measurements behind the choice.
//!
//! Loading takes the arrays from the caller (`Network::new`: the Python side reads the
//! `.npz` with NumPy, so this crate parses no files) and checks everything: a network
//! file is hostile input, so every shape, size and value is checked against the limits
//! below.

use crate::game::Objective;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use std::collections::HashMap;
use std::ops::Range;

/// The file format this code reads (`meta["format"]`).
pub const FORMAT: &str = "tabletop-pv-1";
/// At most this many trunk layers.
pub const MAX_LAYERS: usize = 16;
/// At most this many floats in all (64 MB): the issue's networks are a few MB.
pub const MAX_PARAMETERS: usize = 16 << 20;
/// At most this many seats in the value head (the games have 2 to 4).
pub const MAX_SEATS: usize = 8;
/// The longest meta JSON read.
pub const MAX_META_BYTES: usize = 64 * 1024;

/// What the file says about the network (its `meta` JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub game: String,
    pub num_players: usize,
    pub ruleset: String,
    pub input_size: usize,
    pub num_actions: usize,
    pub hidden: Vec<usize>,
    /// What the value head's softmax estimates (`"value"`: `"win"`, the default of files
    /// that do not say, or `"placing"`).
    pub objective: Objective,
    /// The whole JSON as read (with `made_by` and anything else the trainer wrote).
    pub json: String,
}

/// One layer's weights: `inputs x outputs`, row-major (`w[i, j]` at `i * outputs + j`).
#[derive(Clone, Debug)]
struct Dense {
    inputs: usize,
    outputs: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// An array handed in by the caller: its shape and its values (C order).
pub struct Array {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// A policy and value network (read-only once made: one is shared by searches on many
/// threads).
#[derive(Clone, Debug)]
pub struct Network {
    pub meta: Meta,
    trunk: Vec<Dense>,
    /// `policy_w` transposed: the weights of action `a` at `a * H .. (a + 1) * H`.
    policy_rows: Vec<f32>,
    policy_bias: Vec<f32>,
    /// `value_w`, `H x P` row-major.
    value_weights: Vec<f32>,
    value_bias: Vec<f32>,
}

/// What a game says of its inputs (`game::Game::input_layout`): a range of inputs that
/// is the same for every position of one game (a board's fixed planes), and ranges each
/// filled with one value (planes of a score): the first layer then adds the fixed rows
/// of `w0` once, and one precomputed sum of rows per filled range.
#[derive(Clone, Debug, Default)]
pub struct InputLayout {
    pub fixed: Range<usize>,
    pub uniform: Vec<Range<usize>>,
}

/// The first layer made for one game's inputs ([`InputLayout`]).
struct FirstLayer {
    /// `b0` plus the fixed inputs' rows.
    bias: Vec<f32>,
    /// Each filled range and the sum of its rows.
    uniform: Vec<(Range<usize>, Vec<f32>)>,
    /// The other inputs.
    free: Vec<Range<usize>>,
    /// The fixed inputs, checked against every input in debug builds.
    fixed: (Range<usize>, Vec<f32>),
}

/// Buffers one evaluation uses (one per search, so the network itself stays shared).
#[derive(Default)]
pub struct Scratch {
    layers: [Vec<f32>; 2],
    nonzero: Vec<(u32, f32)>,
    first: Option<FirstLayer>,
}

impl Scratch {
    /// Buffers whose first layer knows `layout`, the inputs of one game (`sample`: one
    /// input of it, for the fixed part); an error if a range lies outside the inputs or
    /// two overlap.
    pub fn for_inputs(network: &Network, layout: &InputLayout, sample: &[f32]) -> Result<Scratch, String> {
        let size = network.input_size();
        let mut ranges: Vec<Range<usize>> = std::iter::once(layout.fixed.clone())
            .chain(layout.uniform.iter().cloned())
            .filter(|r| !r.is_empty())
            .collect();
        ranges.sort_by_key(|r| r.start);
        if sample.len() != size
            || ranges.iter().any(|r| r.end > size)
            || ranges.windows(2).any(|w| w[0].end > w[1].start)
        {
            return Err(format!("an input layout that does not fit {size} inputs: {layout:?}"));
        }
        let first = &network.trunk[0];
        let row = |i: usize| &first.weights[i * first.outputs..(i + 1) * first.outputs];
        let mut bias = first.bias.clone();
        for i in layout.fixed.clone() {
            if sample[i] != 0.0 {
                bias.iter_mut().zip(row(i)).for_each(|(b, &w)| *b += sample[i] * w);
            }
        }
        let uniform = layout
            .uniform
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| {
                let mut sum = vec![0.0f32; first.outputs];
                for i in r.clone() {
                    sum.iter_mut().zip(row(i)).for_each(|(s, &w)| *s += w);
                }
                (r.clone(), sum)
            })
            .collect();
        let mut free = Vec::new();
        let mut at = 0;
        for r in &ranges {
            if at < r.start {
                free.push(at..r.start);
            }
            at = r.end;
        }
        if at < size {
            free.push(at..size);
        }
        let fixed = (layout.fixed.clone(), sample[layout.fixed.clone()].to_vec());
        Ok(Scratch {
            first: Some(FirstLayer {
                bias,
                uniform,
                free,
                fixed,
            }),
            ..Scratch::default()
        })
    }
}

fn parse_meta(json: &str) -> Result<Meta, String> {
    if json.len() > MAX_META_BYTES {
        return Err(format!("the network's meta is longer than {MAX_META_BYTES} bytes"));
    }
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("the network's meta is not JSON: {e}"))?;
    let object = value.as_object().ok_or("the network's meta is not a JSON object")?;
    let text = |key: &str| -> Result<String, String> {
        object
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .ok_or_else(|| format!("the network's meta has no string {key:?}"))
    };
    let count = |v: &serde_json::Value, key: &str| -> Result<usize, String> {
        v.as_u64()
            .filter(|&n| n > 0 && n <= MAX_PARAMETERS as u64)
            .map(|n| n as usize)
            .ok_or_else(|| format!("the network's meta {key:?} is not a whole number from 1 to {MAX_PARAMETERS}"))
    };
    let field = |key: &str| -> Result<usize, String> {
        count(
            object
                .get(key)
                .ok_or_else(|| format!("the network's meta has no {key:?}"))?,
            key,
        )
    };
    let format = text("format")?;
    if format != FORMAT {
        return Err(format!("the network's format is {format:?}, not {FORMAT:?}"));
    }
    let hidden = object
        .get("hidden")
        .and_then(|v| v.as_array())
        .ok_or("the network's meta has no list \"hidden\"")?
        .iter()
        .map(|v| count(v, "hidden"))
        .collect::<Result<Vec<_>, _>>()?;
    if hidden.is_empty() || hidden.len() > MAX_LAYERS {
        return Err(format!(
            "the network has {} hidden layers, not 1 to {MAX_LAYERS}",
            hidden.len()
        ));
    }
    let num_players = field("num_players")?;
    if !(2..=MAX_SEATS).contains(&num_players) {
        return Err(format!(
            "the network is for {num_players} players, not 2 to {MAX_SEATS}"
        ));
    }
    let objective = match object.get("value") {
        None => Objective::Win,
        Some(value) => value
            .as_str()
            .and_then(Objective::parse)
            .ok_or_else(|| format!("the network's meta \"value\" is {value}, not \"win\" or \"placing\""))?,
    };
    Ok(Meta {
        objective,
        game: text("game")?,
        num_players,
        ruleset: text("ruleset")?,
        input_size: field("input_size")?,
        num_actions: field("num_actions")?,
        hidden,
        json: json.to_owned(),
    })
}

impl Network {
    /// The network of `meta_json` with the arrays `w0, b0, ..., policy_w, policy_b,
    /// value_w, value_b`; an error saying what is wrong where a shape, a size or a value
    /// does not fit (or an array is missing or unknown).
    pub fn new(meta_json: &str, mut arrays: HashMap<String, Array>) -> Result<Network, String> {
        let meta = parse_meta(meta_json)?;
        let mut parameters = 0usize;
        let mut take = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let array = arrays
                .remove(name)
                .ok_or_else(|| format!("the network has no array {name:?}"))?;
            if array.shape != shape {
                return Err(format!(
                    "the network's {name} has shape {:?}, {shape:?} expected (meta: {} inputs, hidden {:?}, {} actions, {} players)",
                    array.shape, meta.input_size, meta.hidden, meta.num_actions, meta.num_players
                ));
            }
            if array.values.len() != shape.iter().product::<usize>() {
                return Err(format!(
                    "the network's {name} has {} values for its shape",
                    array.values.len()
                ));
            }
            if array.values.iter().any(|v| !v.is_finite()) {
                return Err(format!("the network's {name} has a value that is not finite"));
            }
            parameters += array.values.len();
            if parameters > MAX_PARAMETERS {
                return Err(format!("the network has more than {MAX_PARAMETERS} parameters"));
            }
            Ok(array.values)
        };
        let mut trunk = Vec::new();
        let mut inputs = meta.input_size;
        for (i, &outputs) in meta.hidden.iter().enumerate() {
            let weights = take(&format!("w{i}"), &[inputs, outputs])?;
            let bias = take(&format!("b{i}"), &[outputs])?;
            trunk.push(Dense {
                inputs,
                outputs,
                weights,
                bias,
            });
            inputs = outputs;
        }
        let (h, a, p) = (inputs, meta.num_actions, meta.num_players);
        let policy_w = take("policy_w", &[h, a])?;
        let policy_bias = take("policy_b", &[a])?;
        let value_weights = take("value_w", &[h, p])?;
        let value_bias = take("value_b", &[p])?;
        if let Some(name) = arrays.keys().min() {
            return Err(format!("the network has an unknown array {name:?}"));
        }
        let mut policy_rows = vec![0.0f32; h * a];
        for i in 0..h {
            for j in 0..a {
                policy_rows[j * h + i] = policy_w[i * a + j];
            }
        }
        Ok(Network {
            meta,
            trunk,
            policy_rows,
            policy_bias,
            value_weights,
            value_bias,
        })
    }

    pub fn input_size(&self) -> usize {
        self.meta.input_size
    }

    pub fn num_actions(&self) -> usize {
        self.meta.num_actions
    }

    pub fn num_players(&self) -> usize {
        self.meta.num_players
    }

    /// Width of the last hidden layer.
    fn width(&self) -> usize {
        self.trunk.last().map_or(self.meta.input_size, |d| d.outputs)
    }

    /// The last hidden layer of `n` inputs (`inputs`: `n x input_size`, row-major), in
    /// `scratch` (`n x width`, row-major); returns which of its two buffers holds it.
    fn trunk(&self, inputs: &[f32], n: usize, scratch: &mut Scratch) -> usize {
        assert_eq!(inputs.len(), n * self.meta.input_size, "inputs of the wrong size");
        let first = &self.trunk[0];
        let Scratch {
            layers,
            nonzero,
            first: prepared,
        } = scratch;
        let out = &mut layers[0];
        out.clear();
        out.resize(n * first.outputs, 0.0);
        let add_row = |h: &mut [f32], i: usize, v: f32| {
            let row = &first.weights[i * first.outputs..(i + 1) * first.outputs];
            for (hj, &wj) in h.iter_mut().zip(row) {
                *hj += v * wj;
            }
        };
        for (x, h) in inputs
            .chunks_exact(first.inputs)
            .zip(out.chunks_exact_mut(first.outputs))
        {
            match prepared {
                Some(layer) => {
                    debug_assert_eq!(
                        &x[layer.fixed.0.clone()],
                        &layer.fixed.1[..],
                        "the fixed inputs changed"
                    );
                    h.copy_from_slice(&layer.bias);
                    for (range, sum) in &layer.uniform {
                        let v = x[range.start];
                        debug_assert!(x[range.clone()].iter().all(|&u| u == v), "a filled range is not");
                        if v != 0.0 {
                            h.iter_mut().zip(sum).for_each(|(hj, &s)| *hj += v * s);
                        }
                    }
                    for range in &layer.free {
                        for i in range.clone() {
                            if x[i] != 0.0 {
                                add_row(h, i, x[i]);
                            }
                        }
                    }
                }
                None => {
                    h.copy_from_slice(&first.bias);
                    nonzero.clear();
                    nonzero.extend(
                        x.iter()
                            .enumerate()
                            .filter(|(_, &v)| v != 0.0)
                            .map(|(i, &v)| (i as u32, v)),
                    );
                    for &(i, v) in nonzero.iter() {
                        add_row(h, i as usize, v);
                    }
                }
            }
            h.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        let mut current = 0;
        for layer in &self.trunk[1..] {
            let [a, b] = layers;
            let (from, to) = if current == 0 { (a, b) } else { (b, a) };
            to.clear();
            to.extend(std::iter::repeat_n(layer.bias.iter().copied(), n).flatten());
            let x = ArrayView2::from_shape((n, layer.inputs), &from[..]).expect("the batch's shape");
            let w =
                ArrayView2::from_shape((layer.inputs, layer.outputs), &layer.weights[..]).expect("the layer's shape");
            let mut y = ArrayViewMut2::from_shape((n, layer.outputs), &mut to[..]).expect("the output's shape");
            general_mat_mul(1.0, &x, &w, 1.0, &mut y);
            to.iter_mut().for_each(|v| *v = v.max(0.0));
            current = 1 - current;
        }
        current
    }

    /// The value head of one hidden vector: a softmax over the seats, into `out`.
    fn values_of(&self, h: &[f32], out: &mut [f32]) {
        let p = self.meta.num_players;
        out.copy_from_slice(&self.value_bias);
        for (&hi, row) in h.iter().zip(self.value_weights.chunks_exact(p)) {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += hi * w;
            }
        }
        softmax(out);
    }

    /// Evaluates `n = legal.len()` positions (`inputs`: `n x input_size`): writes the
    /// policy over each position's legal actions to `priors[k]` (in `legal[k]`'s order,
    /// summing to 1) and the value head (relative seats) to `values[k * P .. (k + 1) * P]`.
    pub fn evaluate(
        &self,
        inputs: &[f32],
        legal: &[Vec<u32>],
        priors: &mut [Vec<f32>],
        values: &mut [f32],
        scratch: &mut Scratch,
    ) {
        let n = legal.len();
        let (width, p) = (self.width(), self.meta.num_players);
        let which = self.trunk(inputs, n, scratch);
        let hidden = &scratch.layers[which];
        for k in 0..n {
            let h = &hidden[k * width..(k + 1) * width];
            let out = &mut priors[k];
            out.clear();
            out.extend(legal[k].iter().map(|&a| {
                let row = &self.policy_rows[a as usize * width..(a as usize + 1) * width];
                self.policy_bias[a as usize] + dot(h, row)
            }));
            softmax(out);
            self.values_of(h, &mut values[k * p..(k + 1) * p]);
        }
    }

    /// Every logit and the value head of `n` inputs: `(n x A logits, n x P values)` (for
    /// tests and for Python's `Network.forward`).
    pub fn forward(&self, inputs: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        let (width, a, p) = (self.width(), self.meta.num_actions, self.meta.num_players);
        let mut scratch = Scratch::default();
        let which = self.trunk(inputs, n, &mut scratch);
        let hidden = &scratch.layers[which];
        let mut logits = Vec::with_capacity(n * a);
        let mut values = vec![0.0f32; n * p];
        for k in 0..n {
            let h = &hidden[k * width..(k + 1) * width];
            logits.extend((0..a).map(|j| self.policy_bias[j] + dot(h, &self.policy_rows[j * width..(j + 1) * width])));
            self.values_of(h, &mut values[k * p..(k + 1) * p]);
        }
        (logits, values)
    }
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight partial sums: the compiler keeps them in one vector register.
    let mut sums = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..8 {
            sums[i] += x[i] * y[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// In place, the largest subtracted first (no overflow).
fn softmax(values: &mut [f32]) {
    let top = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for v in values.iter_mut() {
        *v = (*v - top).exp();
        total += *v;
    }
    values.iter_mut().for_each(|v| *v /= total);
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::common::rng::Rng;

    /// A network of random weights (uniform in `-scale..scale`) for `input_size` inputs.
    pub fn random_network(
        game: &str,
        input_size: usize,
        hidden: &[usize],
        num_actions: usize,
        num_players: usize,
        seed: u64,
    ) -> Network {
        let mut rng = Rng::new(seed);
        let mut arrays = HashMap::new();
        let mut random = |shape: Vec<usize>| {
            let count = shape.iter().product();
            let values = (0..count)
                .map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2)
                .collect();
            Array { shape, values }
        };
        let mut inputs = input_size;
        for (i, &h) in hidden.iter().enumerate() {
            arrays.insert(format!("w{i}"), random(vec![inputs, h]));
            arrays.insert(format!("b{i}"), random(vec![h]));
            inputs = h;
        }
        arrays.insert("policy_w".into(), random(vec![inputs, num_actions]));
        arrays.insert("policy_b".into(), random(vec![num_actions]));
        arrays.insert("value_w".into(), random(vec![inputs, num_players]));
        arrays.insert("value_b".into(), random(vec![num_players]));
        Network::new(&meta_json(game, input_size, hidden, num_actions, num_players), arrays).unwrap()
    }

    pub fn meta_json(
        game: &str,
        input_size: usize,
        hidden: &[usize],
        num_actions: usize,
        num_players: usize,
    ) -> String {
        format!(
            r#"{{"format": "{FORMAT}", "game": "{game}", "num_players": {num_players}, "ruleset": "default",
                "input_size": {input_size}, "num_actions": {num_actions}, "hidden": {hidden:?}, "made_by": "test"}}"#
        )
    }

    #[test]
    fn the_legal_priors_are_the_softmax_of_those_logits() {
        let net = random_network("nim", 12, &[16, 8], 5, 2, 1);
        let mut rng = Rng::new(9);
        let x: Vec<f32> = (0..12)
            .map(|i| if i % 3 == 0 { 0.0 } else { rng.below(5) as f32 - 2.0 })
            .collect();
        let (logits, values) = net.forward(&x, 1);
        let legal = vec![vec![4u32, 1, 3]];
        let mut priors = vec![Vec::new()];
        let mut v = vec![0.0; 2];
        net.evaluate(&x, &legal, &mut priors, &mut v, &mut Scratch::default());
        let exps: Vec<f32> = legal[0].iter().map(|&a| logits[a as usize].exp()).collect();
        let total: f32 = exps.iter().sum();
        for (p, e) in priors[0].iter().zip(exps) {
            assert!((p - e / total).abs() < 1e-5, "{priors:?}");
        }
        assert!((v[0] - values[0]).abs() < 1e-6 && (v[0] + v[1] - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_batch_is_evaluated_as_its_rows_one_by_one() {
        let net = random_network("nim", 10, &[32, 16, 8], 6, 3, 2);
        let mut rng = Rng::new(4);
        let xs: Vec<f32> = (0..50).map(|_| rng.below(3) as f32).collect();
        let (logits, values) = net.forward(&xs, 5);
        for k in 0..5 {
            let (l, v) = net.forward(&xs[k * 10..(k + 1) * 10], 1);
            for (a, b) in l.iter().zip(&logits[k * 6..(k + 1) * 6]) {
                assert!((a - b).abs() < 1e-5);
            }
            for (a, b) in v.iter().zip(&values[k * 3..(k + 1) * 3]) {
                assert!((a - b).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn a_first_layer_made_for_the_inputs_computes_the_same() {
        let net = random_network("nim", 20, &[16, 8], 5, 2, 3);
        let layout = InputLayout {
            fixed: 0..4,
            uniform: vec![8..12, 16..18],
        };
        let mut rng = Rng::new(5);
        let mut xs = Vec::new();
        for _ in 0..6 {
            let mut x: Vec<f32> = (0..20).map(|_| rng.below(3) as f32 - 1.0).collect();
            x[..4].copy_from_slice(&[1.0, 0.0, 0.5, 2.0]);
            let (a, b) = (rng.below(4) as f32 * 0.25, rng.below(4) as f32);
            x[8..12].fill(a);
            x[16..18].fill(b);
            xs.extend(x);
        }
        let legal = vec![vec![0u32, 2, 4]; 6];
        let run = |scratch: &mut Scratch| {
            let mut priors = vec![Vec::new(); 6];
            let mut values = vec![0.0; 12];
            net.evaluate(&xs, &legal, &mut priors, &mut values, scratch);
            (priors, values)
        };
        let (plain_priors, plain_values) = run(&mut Scratch::default());
        let (priors, values) = run(&mut Scratch::for_inputs(&net, &layout, &xs[..20]).unwrap());
        for (a, b) in plain_priors.concat().iter().zip(priors.concat()) {
            assert!((a - b).abs() < 1e-5, "{a} {b}");
        }
        for (a, b) in plain_values.iter().zip(values) {
            assert!((a - b).abs() < 1e-5, "{a} {b}");
        }
        let overlapping = InputLayout {
            fixed: 0..4,
            uniform: vec![3..6, 10..12],
        };
        assert!(Scratch::for_inputs(&net, &overlapping, &xs[..20]).is_err());
    }

    #[test]
    fn wrong_shapes_and_values_are_refused_with_the_reason() {
        let json = meta_json("nim", 4, &[3], 2, 2);
        let arrays = |w0_rows: usize, bad: f32| {
            let mut out = HashMap::new();
            let mut put = |name: &str, shape: Vec<usize>| {
                let n = shape.iter().product();
                out.insert(
                    name.to_string(),
                    Array {
                        shape,
                        values: vec![0.1; n],
                    },
                );
            };
            put("w0", vec![w0_rows, 3]);
            put("b0", vec![3]);
            put("policy_w", vec![3, 2]);
            put("policy_b", vec![2]);
            put("value_w", vec![3, 2]);
            put("value_b", vec![2]);
            out.get_mut("b0").unwrap().values[1] = bad;
            out
        };
        assert!(Network::new(&json, arrays(4, 0.0)).is_ok());
        let error = Network::new(&json, arrays(5, 0.0)).unwrap_err();
        assert!(error.contains("w0 has shape [5, 3], [4, 3] expected"), "{error}");
        let error = Network::new(&json, arrays(4, f32::NAN)).unwrap_err();
        assert!(error.contains("not finite"), "{error}");
        let mut extra = arrays(4, 0.0);
        extra.insert(
            "w1".into(),
            Array {
                shape: vec![1],
                values: vec![0.0],
            },
        );
        assert!(Network::new(&json, extra).unwrap_err().contains("unknown array \"w1\""));
        let error = Network::new(&json.replace(FORMAT, "other"), arrays(4, 0.0)).unwrap_err();
        assert!(error.contains("format"), "{error}");
        let error = Network::new(&json.replace("\"hidden\": [3]", "\"hidden\": []"), arrays(4, 0.0)).unwrap_err();
        assert!(error.contains("hidden layers"), "{error}");
        let long = json.replace("\"test\"", &format!("\"{}\"", "x".repeat(MAX_META_BYTES)));
        let error = Network::new(&long, arrays(4, 0.0)).unwrap_err();
        assert!(error.contains("longer than"), "{error}");
    }
}

/// Inference latency at the issue's sizes (`docs/bots.md`, "The network in the search"):
/// `cargo test --release --lib -- --ignored --nocapture network_latency`.
#[cfg(test)]
mod latency {
    use super::tests::random_network;
    use super::*;
    use crate::common::mcts::thread_cpu_seconds;
    use crate::common::rng::Rng;

    /// What a general framework does: the first layer and the policy head as dense
    /// matrix products (every input, every action).
    fn dense_forward(net: &Network, policy_w: &[f32], inputs: &[f32], n: usize) -> f32 {
        let first = &net.trunk[0];
        let mut h = vec![0.0f32; n * first.outputs];
        for row in h.chunks_exact_mut(first.outputs) {
            row.copy_from_slice(&first.bias);
        }
        let x = ArrayView2::from_shape((n, first.inputs), inputs).unwrap();
        let w = ArrayView2::from_shape((first.inputs, first.outputs), &first.weights[..]).unwrap();
        general_mat_mul(
            1.0,
            &x,
            &w,
            1.0,
            &mut ArrayViewMut2::from_shape((n, first.outputs), &mut h[..]).unwrap(),
        );
        h.iter_mut().for_each(|v| *v = v.max(0.0));
        for layer in &net.trunk[1..] {
            let mut y = vec![0.0f32; n * layer.outputs];
            for row in y.chunks_exact_mut(layer.outputs) {
                row.copy_from_slice(&layer.bias);
            }
            let x = ArrayView2::from_shape((n, layer.inputs), &h[..]).unwrap();
            let w = ArrayView2::from_shape((layer.inputs, layer.outputs), &layer.weights[..]).unwrap();
            general_mat_mul(
                1.0,
                &x,
                &w,
                1.0,
                &mut ArrayViewMut2::from_shape((n, layer.outputs), &mut y[..]).unwrap(),
            );
            y.iter_mut().for_each(|v| *v = v.max(0.0));
            h = y;
        }
        let (width, a) = (net.width(), net.num_actions());
        let mut logits = vec![0.0f32; n * a];
        let x = ArrayView2::from_shape((n, width), &h[..]).unwrap();
        let w = ArrayView2::from_shape((width, a), policy_w).unwrap();
        general_mat_mul(
            1.0,
            &x,
            &w,
            0.0,
            &mut ArrayViewMut2::from_shape((n, a), &mut logits[..]).unwrap(),
        );
        logits.iter().sum()
    }

    fn per_position(n: usize, mut f: impl FnMut()) -> f64 {
        f();
        let start = thread_cpu_seconds();
        let mut calls = 0;
        while thread_cpu_seconds() - start < 0.5 {
            f();
            calls += 1;
        }
        (thread_cpu_seconds() - start) / (calls * n) as f64 * 1e6
    }

    #[test]
    #[ignore]
    fn network_latency() {
        // Medina 3p and Terra Nova 2p (isola): inputs, nonzero inputs and actions of a
        // mid-game observation, and its legal actions.
        for (game, inputs, nonzero, actions, legal) in [
            ("medina 3p", 6876, 1270, 2107, 152),
            ("terranova 2p", 5423, 825, 14449, 190),
        ] {
            let net = random_network(game, inputs, &[256, 128], actions, 3, 1);
            // `policy_w` as the file has it (H x A).
            let (width, a) = (net.width(), net.num_actions());
            let mut policy_w = vec![0.0f32; width * a];
            for j in 0..a {
                for i in 0..width {
                    policy_w[i * a + j] = net.policy_rows[j * width + i];
                }
            }
            let mut rng = Rng::new(2);
            for n in [1usize, 16, 64] {
                let xs: Vec<f32> = (0..n * inputs)
                    .map(|_| if rng.below(inputs as u32) < nonzero { 1.0 } else { 0.0 })
                    .collect();
                let legal_ids: Vec<Vec<u32>> = (0..n)
                    .map(|_| (0..legal).map(|_| rng.below(actions as u32)).collect())
                    .collect();
                let mut priors = vec![Vec::new(); n];
                let mut values = vec![0.0f32; n * 3];
                let mut scratch = Scratch::default();
                let ours = per_position(n, || {
                    net.evaluate(&xs, &legal_ids, &mut priors, &mut values, &mut scratch);
                });
                let dense = per_position(n, || {
                    std::hint::black_box(dense_forward(&net, &policy_w, &xs, n));
                });
                println!(
                    "{game} [256, 128] batch {n:>2}: evaluate {ours:>7.1} us/position, dense {dense:>7.1} us/position"
                );
            }
        }
    }
}
