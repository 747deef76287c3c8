//! The policy and value network inside the search (issue #40), evaluated in Rust over the
//! research encoding's observation: one of two architectures (`meta["architecture"]`).
//!
//! The definition is `docs/bots.md`'s ("The network in the search"), whose readable form is
//! `src/tabletop/core/network.py` (`PolicyValueNetwork.forward`):
//! - **dense** (files that do not say): a trunk of ReLU layers `h_{i+1} = relu(h_i @ w{i} +
//!   b{i})`, a policy head `h @ policy_w + policy_b` (one logit per action id, softmax over
//!   the legal actions only) and a value head `softmax(h @ value_w + value_b)` (one win
//!   share per seat, RELATIVE to the seat to act: index 0 is the seat to act, 1 the next
//!   seat, ...);
//! - **cells** (`PolicyValueNetwork._forward_cells`): layers shared by every cell of the
//!   board, each cell reading its own planes and the squashed vector, then its
//!   neighbours' (residual layers); a policy read from each action's two cells through
//!   per-head projections plus a per-class bias and a weight from the board's summary
//!   (mean and max over the cells, the squashed vector); a value head with one hidden
//!   layer over the summary. The geometry (which cells, neighbours and heads) is not in
//!   the file: the caller hands it over ([`Geometry`], Python's `CellInputs`).
//!
//! Two things make the dense network fast where the search calls it, neither changing the
//! function:
//! - the first layer adds only the rows of `w0` whose input is not zero (most of an
//!   observation's planes are one-hot and zero almost everywhere, and the first layer is
//!   most of the network's weights);
//! - the policy head computes the logits of the legal actions only (a column of
//!   `policy_w` each, stored as rows here).
//!
//! The dense layers after the first, and every layer of the cells network (over the
//! batch's cells x positions rows), are matrix products by `ndarray` (`matrixmultiply`'s
//! sgemm): see docs/bots.md ("The network in the search") for the measurements behind the
//! choice.
//!
//! Loading takes the arrays from the caller (`Network::new`: the Python side reads the
//! `.npz` with NumPy, so this crate parses no files) and checks everything: a network
//! file is hostile input, so every shape, size, index and value is checked against the
//! limits below.

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
/// The widest hidden layer of a cells network's value head (Python's `MAX_VALUE_HIDDEN`).
pub const MAX_VALUE_HIDDEN: usize = 4096;
/// At most this many values in one position's widest cells layer input (cells x (1 +
/// neighbours) x width, 4 MB; a search's batch of `puct::MAX_BATCH` positions then holds
/// at most 1 GB): Terra Nova's 168 cells, 6 neighbours and width 128 are 150,528.
pub const MAX_CELL_VALUES: usize = 1 << 20;

/// How the trunk is built (`meta["architecture"]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// Fully connected layers over the whole input (files that do not say).
    Dense,
    /// Layers shared by every cell of the board, each reading its neighbours.
    Cells,
}

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
    pub architecture: Architecture,
    /// A cells network's value head's hidden width (0 for a dense one).
    pub value_hidden: usize,
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

impl Dense {
    /// `out = x @ weights + bias` of `rows` rows of `x` (row-major), by one matrix product.
    fn apply(&self, x: &[f32], rows: usize, out: &mut Vec<f32>) {
        out.clear();
        out.extend(std::iter::repeat_n(self.bias.iter().copied(), rows).flatten());
        self.accumulate(&self.weights, x, rows, out);
    }

    /// `out += x @ weights` (`weights`: the first rows of this layer's).
    fn accumulate(&self, weights: &[f32], x: &[f32], rows: usize, out: &mut [f32]) {
        let inputs = weights.len() / self.outputs;
        let x = ArrayView2::from_shape((rows, inputs), x).expect("the batch's shape");
        let w = ArrayView2::from_shape((inputs, self.outputs), weights).expect("the layer's shape");
        let mut y = ArrayViewMut2::from_shape((rows, self.outputs), out).expect("the output's shape");
        general_mat_mul(1.0, &x, &w, 1.0, &mut y);
    }
}

/// An array handed in by the caller: its shape and its values (C order).
pub struct Array {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// An index array handed in by the caller (a cells network's geometry): its shape and
/// its values (C order).
pub struct IndexArray {
    pub shape: Vec<usize>,
    pub values: Vec<i64>,
}

/// What a cells network reads of its game (Python's `CellInputs`): how the input splits
/// into `num_planes` planes of `plane_size` values and a vector of `vector_size`, the
/// numbers of policy heads and action classes, and the index arrays of
/// `CellInputs.index_arrays()`: `positions (N,)` (each cell's index within a plane),
/// `gather (N, 1 + K)` (each cell, then its `K` neighbours), `action_cells (A, 2)`,
/// `action_heads (A, 2)` and `action_classes (A,)`, a missing cell written `N`.
pub struct Geometry {
    pub num_planes: usize,
    pub plane_size: usize,
    pub vector_size: usize,
    pub num_heads: usize,
    pub num_classes: usize,
    pub arrays: HashMap<String, IndexArray>,
}

/// A policy and value network (read-only once made: one is shared by searches on many
/// threads).
#[derive(Clone, Debug)]
pub struct Network {
    pub meta: Meta,
    body: Body,
}

#[derive(Clone, Debug)]
enum Body {
    Dense(DenseBody),
    Cells(Box<CellsBody>),
}

/// The dense architecture's weights.
#[derive(Clone, Debug)]
struct DenseBody {
    trunk: Vec<Dense>,
    /// `policy_w` transposed: the weights of action `a` at `a * H .. (a + 1) * H`.
    policy_rows: Vec<f32>,
    policy_bias: Vec<f32>,
    /// `value_w`, `H x P` row-major.
    value_weights: Vec<f32>,
    value_bias: Vec<f32>,
}

/// Marks a read of the zero row (a missing cell) in [`CellsBody::action_reads`].
const NO_READ: u32 = u32::MAX;

/// The cells architecture's geometry and weights.
#[derive(Clone, Debug)]
struct CellsBody {
    num_planes: usize,
    plane_size: usize,
    vector_size: usize,
    /// Each cell's index within a plane.
    positions: Vec<usize>,
    /// `1 + K`: a cell and its neighbours.
    reach: usize,
    /// `cells x reach`: each cell, then its neighbours (`cells`: none, a zero row).
    gather: Vec<usize>,
    /// Per action, where its two reads lie in one position's heads (`cell * R + head`,
    /// or [`NO_READ`]).
    action_reads: Vec<[u32; 2]>,
    action_classes: Vec<u32>,
    /// `w0, b0`: a cell's planes, then the squashed vector.
    first: Dense,
    /// `w1, b1, ...`: each added to the cells it reads.
    residual: Vec<Dense>,
    /// `policy_w` (no bias): a cell's head values.
    heads: Dense,
    /// `policy_global_w` with `policy_b` as its bias: each class's logit from the summary.
    classes: Dense,
    value_hidden: Dense,
    value_out: Dense,
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
    cells: CellsScratch,
}

/// A cells network's buffers (`rows`: the batch's positions x cells).
#[derive(Default)]
struct CellsScratch {
    /// `rows x num_planes`: each cell's planes.
    planes: Vec<f32>,
    /// `rows x width`: the cells' hidden values.
    hidden: Vec<f32>,
    /// `rows x reach * width`: each cell's and its neighbours' hidden values.
    gathered: Vec<f32>,
    /// `rows x width`: a residual layer's output.
    layer: Vec<f32>,
    /// `positions x (2 * width + vector_size)`: mean and max over the cells, squashed vector.
    summaries: Vec<f32>,
    /// `positions x width`: `b0` plus the squashed vector's rows of `w0`.
    first_bias: Vec<f32>,
    /// `rows x num_heads`.
    heads: Vec<f32>,
    /// `positions x num_classes`.
    classes: Vec<f32>,
    /// `positions x value_hidden`, then `positions x num_players`.
    value_hidden: Vec<f32>,
    value_out: Vec<f32>,
}

impl Scratch {
    /// Buffers whose first layer knows `layout`, the inputs of one game (`sample`: one
    /// input of it, for the fixed part); an error if a range lies outside the inputs or
    /// two overlap. A cells network's buffers are plain ones (its first layer reads a
    /// cell's planes, few values, by one matrix product).
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
        let Body::Dense(dense) = &network.body else {
            return Ok(Scratch::default());
        };
        let first = &dense.trunk[0];
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
    let architecture = match object.get("architecture") {
        None => Architecture::Dense,
        Some(value) => match value.as_str() {
            Some("dense") => Architecture::Dense,
            Some("cells") => Architecture::Cells,
            _ => {
                return Err(format!(
                    "the network's meta \"architecture\" is {value}, not \"dense\" or \"cells\""
                ))
            }
        },
    };
    let value_hidden = match object.get("value_hidden") {
        None => 0,
        Some(value) => value
            .as_u64()
            .filter(|&n| n <= MAX_VALUE_HIDDEN as u64)
            .map(|n| n as usize)
            .ok_or_else(|| {
                format!(
                    "the network's meta \"value_hidden\" is {value}, not a whole number from 0 to {MAX_VALUE_HIDDEN}"
                )
            })?,
    };
    match architecture {
        Architecture::Cells => {
            if hidden.iter().any(|&h| h != hidden[0]) {
                return Err(format!("a cells network's layers are all one width, not {hidden:?}"));
            }
            if value_hidden == 0 {
                return Err(format!(
                    "a cells network's meta needs \"value_hidden\" from 1 to {MAX_VALUE_HIDDEN}"
                ));
            }
        }
        Architecture::Dense if value_hidden != 0 => {
            return Err("the network's meta \"value_hidden\" is for cells networks only".into());
        }
        Architecture::Dense => {}
    }
    Ok(Meta {
        objective,
        architecture,
        value_hidden,
        game: text("game")?,
        num_players,
        ruleset: text("ruleset")?,
        input_size: field("input_size")?,
        num_actions: field("num_actions")?,
        hidden,
        json: json.to_owned(),
    })
}

/// The caller's arrays, taken one by one and checked against the shapes the meta gives.
struct Arrays<'a> {
    arrays: HashMap<String, Array>,
    parameters: usize,
    meta: &'a Meta,
}

impl Arrays<'_> {
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let meta = self.meta;
        let array = self
            .arrays
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
        self.parameters += array.values.len();
        if self.parameters > MAX_PARAMETERS {
            return Err(format!("the network has more than {MAX_PARAMETERS} parameters"));
        }
        Ok(array.values)
    }

    /// The layer of the arrays `weights` (`inputs x outputs`) and `bias` (none: zeros).
    fn dense(&mut self, weights: &str, bias: Option<&str>, inputs: usize, outputs: usize) -> Result<Dense, String> {
        let weights = self.take(weights, &[inputs, outputs])?;
        let bias = match bias {
            Some(name) => self.take(name, &[outputs])?,
            None => vec![0.0; outputs],
        };
        Ok(Dense {
            inputs,
            outputs,
            weights,
            bias,
        })
    }

    /// An error naming an array that no layer took.
    fn finish(self) -> Result<(), String> {
        match self.arrays.keys().min() {
            Some(name) => Err(format!("the network has an unknown array {name:?}")),
            None => Ok(()),
        }
    }
}

/// The index array `name` of `arrays`, of `dims` dimensions, every value in `0..below`:
/// its shape and values.
fn take_index(
    arrays: &mut HashMap<String, IndexArray>,
    name: &str,
    dims: usize,
    below: usize,
) -> Result<(Vec<usize>, Vec<usize>), String> {
    let array = arrays
        .remove(name)
        .ok_or_else(|| format!("the cell geometry has no array {name:?}"))?;
    if array.shape.len() != dims || array.values.len() != array.shape.iter().product::<usize>() {
        return Err(format!(
            "the cell geometry's {name} has shape {:?} ({} values), {dims} dimensions expected",
            array.shape,
            array.values.len()
        ));
    }
    let values = array
        .values
        .iter()
        .map(|&v| {
            usize::try_from(v).ok().filter(|&u| u < below).ok_or_else(|| {
                format!(
                    "the cell geometry's {name} holds {v}, not an index from 0 to {}",
                    below - 1
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((array.shape, values))
}

impl DenseBody {
    fn new(arrays: &mut Arrays<'_>) -> Result<DenseBody, String> {
        let meta = arrays.meta;
        let mut trunk = Vec::new();
        let mut inputs = meta.input_size;
        for (i, &outputs) in meta.hidden.iter().enumerate() {
            trunk.push(arrays.dense(&format!("w{i}"), Some(&format!("b{i}")), inputs, outputs)?);
            inputs = outputs;
        }
        let (h, a, p) = (inputs, meta.num_actions, meta.num_players);
        let policy_w = arrays.take("policy_w", &[h, a])?;
        let policy_bias = arrays.take("policy_b", &[a])?;
        let value_weights = arrays.take("value_w", &[h, p])?;
        let value_bias = arrays.take("value_b", &[p])?;
        let mut policy_rows = vec![0.0f32; h * a];
        for i in 0..h {
            for j in 0..a {
                policy_rows[j * h + i] = policy_w[i * a + j];
            }
        }
        Ok(DenseBody {
            trunk,
            policy_rows,
            policy_bias,
            value_weights,
            value_bias,
        })
    }

    /// Width of the last hidden layer.
    fn width(&self) -> usize {
        self.trunk.last().map_or(0, |d| d.outputs)
    }

    /// The last hidden layer of `n` inputs (`inputs`: `n x input_size`, row-major), in
    /// `scratch` (`n x width`, row-major); returns which of its two buffers holds it.
    fn trunk(&self, inputs: &[f32], n: usize, scratch: &mut Scratch) -> usize {
        let first = &self.trunk[0];
        assert_eq!(inputs.len(), n * first.inputs, "inputs of the wrong size");
        let Scratch {
            layers,
            nonzero,
            first: prepared,
            ..
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
        let p = self.value_bias.len();
        out.copy_from_slice(&self.value_bias);
        for (&hi, row) in h.iter().zip(self.value_weights.chunks_exact(p)) {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += hi * w;
            }
        }
        softmax(out);
    }

    fn evaluate(
        &self,
        inputs: &[f32],
        legal: &[Vec<u32>],
        priors: &mut [Vec<f32>],
        values: &mut [f32],
        scratch: &mut Scratch,
    ) {
        let n = legal.len();
        let (width, p) = (self.width(), self.value_bias.len());
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

    fn forward(&self, inputs: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        let (width, a, p) = (self.width(), self.policy_bias.len(), self.value_bias.len());
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

impl CellsBody {
    fn new(arrays: &mut Arrays<'_>, geometry: Geometry) -> Result<CellsBody, String> {
        let meta = arrays.meta;
        let Geometry {
            num_planes,
            plane_size,
            vector_size,
            num_heads,
            num_classes,
            arrays: mut index,
        } = geometry;
        let inputs = num_planes
            .checked_mul(plane_size)
            .and_then(|s| s.checked_add(vector_size));
        if num_planes == 0 || plane_size == 0 || inputs != Some(meta.input_size) {
            return Err(format!(
                "the cell geometry's {num_planes} planes of {plane_size} values and {vector_size} vector values \
                 are not the network's {} inputs",
                meta.input_size
            ));
        }
        if !(1..=MAX_PARAMETERS).contains(&num_heads) || !(1..=MAX_PARAMETERS).contains(&num_classes) {
            return Err(format!(
                "the cell geometry's {num_heads} heads and {num_classes} classes are not 1 to {MAX_PARAMETERS} each"
            ));
        }
        let (shape, positions) = take_index(&mut index, "positions", 1, plane_size)?;
        let cells = shape[0];
        if cells == 0 {
            return Err("the cell geometry has no cells".into());
        }
        let (shape, gather) = take_index(&mut index, "gather", 2, cells + 1)?;
        if shape[0] != cells || shape[1] == 0 {
            return Err(format!(
                "the cell geometry's gather has shape {shape:?}, [{cells}, 1 + neighbours] expected"
            ));
        }
        let (reach, width) = (shape[1], meta.hidden[0]);
        let widest = [reach * width, num_planes, num_heads]
            .into_iter()
            .map(|w| cells.saturating_mul(w))
            .max()
            .unwrap_or(0);
        if widest > MAX_CELL_VALUES {
            return Err(format!(
                "the cells network's layers are wider than {MAX_CELL_VALUES} values a position \
                 ({cells} cells, {reach} reads a cell, width {width}, {num_planes} planes, {num_heads} heads)"
            ));
        }
        let actions = meta.num_actions;
        let mut of_actions = |name: &str, columns: Option<usize>, below: usize| {
            let dims = 1 + usize::from(columns.is_some());
            let (shape, values) = take_index(&mut index, name, dims, below)?;
            let expected: Vec<usize> = std::iter::once(actions).chain(columns).collect();
            if shape != expected {
                return Err(format!(
                    "the cell geometry's {name} has shape {shape:?}, {expected:?} expected ({actions} actions)"
                ));
            }
            Ok(values)
        };
        let action_cells = of_actions("action_cells", Some(2), cells + 1)?;
        let action_heads = of_actions("action_heads", Some(2), num_heads)?;
        let action_classes = of_actions("action_classes", None, num_classes)?;
        if let Some(name) = index.keys().min() {
            return Err(format!("the cell geometry has an unknown array {name:?}"));
        }
        let action_reads = action_cells
            .chunks_exact(2)
            .zip(action_heads.chunks_exact(2))
            .map(|(cell, head)| {
                let read = |j: usize| {
                    if cell[j] == cells {
                        NO_READ
                    } else {
                        (cell[j] * num_heads + head[j]) as u32
                    }
                };
                [read(0), read(1)]
            })
            .collect();
        let summary = 2 * width + vector_size;
        let first = arrays.dense("w0", Some("b0"), num_planes + vector_size, width)?;
        let residual = (1..meta.hidden.len())
            .map(|i| arrays.dense(&format!("w{i}"), Some(&format!("b{i}")), reach * width, width))
            .collect::<Result<Vec<_>, _>>()?;
        let heads = arrays.dense("policy_w", None, width, num_heads)?;
        let classes_bias = arrays.take("policy_b", &[num_classes])?;
        let mut classes = arrays.dense("policy_global_w", None, summary, num_classes)?;
        classes.bias = classes_bias;
        let value_hidden = arrays.dense("value_hidden_w", Some("value_hidden_b"), summary, meta.value_hidden)?;
        let value_out = arrays.dense("value_w", Some("value_b"), meta.value_hidden, meta.num_players)?;
        Ok(CellsBody {
            num_planes,
            plane_size,
            vector_size,
            positions,
            reach,
            gather,
            action_reads,
            action_classes: action_classes.into_iter().map(|c| c as u32).collect(),
            first,
            residual,
            heads,
            classes,
            value_hidden,
            value_out,
        })
    }

    /// Runs the network on `n` inputs (`n x input_size`) up to its heads: the cells'
    /// head values and the classes' logits in `s` (read by [`CellsBody::logit`]), each
    /// position's values (relative seats) in `values[k * P .. (k + 1) * P]`.
    fn run(&self, inputs: &[f32], n: usize, s: &mut CellsScratch, values: &mut [f32]) {
        let (cells, planes, width, reach) = (self.positions.len(), self.num_planes, self.first.outputs, self.reach);
        let split = planes * self.plane_size;
        let input_size = split + self.vector_size;
        assert_eq!(inputs.len(), n * input_size, "inputs of the wrong size");
        let summary = 2 * width + self.vector_size;
        let rows = n * cells;
        s.summaries.clear();
        s.summaries.resize(n * summary, 0.0);
        s.planes.clear();
        s.planes.resize(rows * planes, 0.0);
        s.first_bias.clear();
        for (k, x) in inputs.chunks_exact(input_size).enumerate() {
            let squashed = &mut s.summaries[k * summary + 2 * width..(k + 1) * summary];
            for (o, &v) in squashed.iter_mut().zip(&x[split..]) {
                *o = v / (1.0 + v.abs());
            }
            // The squashed vector is every cell's: its rows of `w0` are added once a position.
            s.first_bias.extend_from_slice(&self.first.bias);
            let bias = &mut s.first_bias[k * width..];
            for (j, &v) in squashed.iter().enumerate() {
                let row = &self.first.weights[(planes + j) * width..(planes + j + 1) * width];
                bias.iter_mut().zip(row).for_each(|(b, &w)| *b += v * w);
            }
            let cell_planes = &mut s.planes[k * cells * planes..(k + 1) * cells * planes];
            for (row, &at) in cell_planes.chunks_exact_mut(planes).zip(&self.positions) {
                for (p, o) in row.iter_mut().enumerate() {
                    *o = x[p * self.plane_size + at];
                }
            }
        }
        s.hidden.clear();
        for bias in s.first_bias.chunks_exact(width) {
            for _ in 0..cells {
                s.hidden.extend_from_slice(bias);
            }
        }
        self.first
            .accumulate(&self.first.weights[..planes * width], &s.planes, rows, &mut s.hidden);
        s.hidden.iter_mut().for_each(|v| *v = v.max(0.0));
        for layer in &self.residual {
            s.gathered.resize(rows * reach * width, 0.0);
            for (h, out) in s
                .hidden
                .chunks_exact(cells * width)
                .zip(s.gathered.chunks_exact_mut(cells * reach * width))
            {
                for (slot, &g) in out.chunks_exact_mut(width).zip(&self.gather) {
                    if g < cells {
                        slot.copy_from_slice(&h[g * width..(g + 1) * width]);
                    } else {
                        slot.fill(0.0);
                    }
                }
            }
            layer.apply(&s.gathered, rows, &mut s.layer);
            s.hidden.iter_mut().zip(&s.layer).for_each(|(h, &y)| *h += y.max(0.0));
        }
        for (h, out) in s
            .hidden
            .chunks_exact(cells * width)
            .zip(s.summaries.chunks_exact_mut(summary))
        {
            let (mean, rest) = out.split_at_mut(width);
            let max = &mut rest[..width];
            max.fill(f32::NEG_INFINITY);
            for row in h.chunks_exact(width) {
                for ((m, x), &v) in mean.iter_mut().zip(max.iter_mut()).zip(row) {
                    *m += v;
                    *x = x.max(v);
                }
            }
            mean.iter_mut().for_each(|m| *m /= cells as f32);
        }
        self.heads.apply(&s.hidden, rows, &mut s.heads);
        self.classes.apply(&s.summaries, n, &mut s.classes);
        self.value_hidden.apply(&s.summaries, n, &mut s.value_hidden);
        s.value_hidden.iter_mut().for_each(|v| *v = v.max(0.0));
        self.value_out.apply(&s.value_hidden, n, &mut s.value_out);
        let p = self.value_out.outputs;
        for (out, z) in values[..n * p].chunks_exact_mut(p).zip(s.value_out.chunks_exact(p)) {
            out.copy_from_slice(z);
            softmax(out);
        }
    }

    /// The logit of `action` in position `k` of the last [`CellsBody::run`].
    #[inline]
    fn logit(&self, s: &CellsScratch, k: usize, action: usize) -> f32 {
        let per_position = self.positions.len() * self.heads.outputs;
        let heads = &s.heads[k * per_position..(k + 1) * per_position];
        let read = |at: u32| if at == NO_READ { 0.0 } else { heads[at as usize] };
        let [first, second] = self.action_reads[action];
        let classes = self.classes.outputs;
        read(first) + read(second) + s.classes[k * classes + self.action_classes[action] as usize]
    }

    fn evaluate(
        &self,
        inputs: &[f32],
        legal: &[Vec<u32>],
        priors: &mut [Vec<f32>],
        values: &mut [f32],
        scratch: &mut Scratch,
    ) {
        let s = &mut scratch.cells;
        self.run(inputs, legal.len(), s, values);
        for (k, (actions, out)) in legal.iter().zip(priors.iter_mut()).enumerate() {
            out.clear();
            out.extend(actions.iter().map(|&a| self.logit(s, k, a as usize)));
            softmax(out);
        }
    }

    fn forward(&self, inputs: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        let mut s = CellsScratch::default();
        let mut values = vec![0.0f32; n * self.value_out.outputs];
        self.run(inputs, n, &mut s, &mut values);
        let actions = self.action_classes.len();
        let logits = (0..n)
            .flat_map(|k| (0..actions).map(move |a| (k, a)))
            .map(|(k, a)| self.logit(&s, k, a))
            .collect();
        (logits, values)
    }
}

impl Network {
    /// The dense network of `meta_json` with the arrays `w0, b0, ..., policy_w, policy_b,
    /// value_w, value_b`; an error saying what is wrong where a shape, a size or a value
    /// does not fit (or an array is missing or unknown).
    pub fn new(meta_json: &str, arrays: HashMap<String, Array>) -> Result<Network, String> {
        Network::with_geometry(meta_json, arrays, None)
    }

    /// The network of `meta_json` with `arrays` (those of `Network::new` for a dense one;
    /// `w0, b0, ..., policy_w, policy_b, policy_global_w, value_hidden_w, value_hidden_b,
    /// value_w, value_b` for a cells one) and, for a cells network only, its game's
    /// `geometry`; an error saying what is wrong where a shape, a size, an index or a value
    /// does not fit (or an array is missing or unknown).
    pub fn with_geometry(
        meta_json: &str,
        arrays: HashMap<String, Array>,
        geometry: Option<Geometry>,
    ) -> Result<Network, String> {
        let meta = parse_meta(meta_json)?;
        let mut arrays = Arrays {
            arrays,
            parameters: 0,
            meta: &meta,
        };
        let body = match (meta.architecture, geometry) {
            (Architecture::Dense, None) => Body::Dense(DenseBody::new(&mut arrays)?),
            (Architecture::Cells, Some(geometry)) => Body::Cells(Box::new(CellsBody::new(&mut arrays, geometry)?)),
            (Architecture::Dense, Some(_)) => return Err("a dense network takes no cell geometry".into()),
            (Architecture::Cells, None) => return Err("a cells network needs its game's cell geometry".into()),
        };
        arrays.finish()?;
        Ok(Network { meta, body })
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
        match &self.body {
            Body::Dense(dense) => dense.evaluate(inputs, legal, priors, values, scratch),
            Body::Cells(cells) => cells.evaluate(inputs, legal, priors, values, scratch),
        }
    }

    /// Every logit and the value head of `n` inputs: `(n x A logits, n x P values)` (for
    /// tests and for Python's `Network.forward`).
    pub fn forward(&self, inputs: &[f32], n: usize) -> (Vec<f32>, Vec<f32>) {
        match &self.body {
            Body::Dense(dense) => dense.forward(inputs, n),
            Body::Cells(cells) => cells.forward(inputs, n),
        }
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

    // A tiny cells network: 2 planes of 6 values and a vector of 2 (14 inputs), 4 cells
    // at plane positions 0, 2, 3, 5, each with 2 neighbours (4: none), 3 heads, 2 classes
    // and 5 actions (one of no cell, three of one cell, one of two).
    const CELLS: usize = 4;
    const PLANE: usize = 6;
    const WIDTH: usize = 4;
    const HEADS: usize = 3;
    const CLASSES: usize = 2;
    const VALUE_HIDDEN: usize = 3;
    const POSITIONS: [i64; CELLS] = [0, 2, 3, 5];
    const GATHER: [[i64; 3]; CELLS] = [[0, 1, 4], [1, 0, 2], [2, 1, 3], [3, 4, 2]];
    const ACTION_CELLS: [[i64; 2]; 5] = [[0, 4], [1, 2], [4, 4], [3, 0], [2, 4]];
    const ACTION_HEADS: [[i64; 2]; 5] = [[0, 0], [1, 2], [0, 0], [2, 1], [0, 1]];
    const ACTION_CLASSES: [i64; 5] = [0, 1, 1, 0, 1];

    fn cells_meta(hidden: &[usize], value_hidden: usize) -> String {
        meta_json("tiny", 2 * PLANE + 2, hidden, 5, 2).replace(
            "\"made_by\"",
            &format!("\"architecture\": \"cells\", \"value_hidden\": {value_hidden}, \"made_by\""),
        )
    }

    fn index(shape: Vec<usize>, values: Vec<i64>) -> IndexArray {
        IndexArray { shape, values }
    }

    fn tiny_geometry() -> Geometry {
        let arrays = HashMap::from([
            ("positions".to_string(), index(vec![CELLS], POSITIONS.to_vec())),
            ("gather".to_string(), index(vec![CELLS, 3], GATHER.concat())),
            ("action_cells".to_string(), index(vec![5, 2], ACTION_CELLS.concat())),
            ("action_heads".to_string(), index(vec![5, 2], ACTION_HEADS.concat())),
            ("action_classes".to_string(), index(vec![5], ACTION_CLASSES.to_vec())),
        ]);
        Geometry {
            num_planes: 2,
            plane_size: PLANE,
            vector_size: 2,
            num_heads: HEADS,
            num_classes: CLASSES,
            arrays,
        }
    }

    /// The tiny network's arrays by name: shape and random values.
    fn tiny_cells_arrays(seed: u64) -> HashMap<String, (Vec<usize>, Vec<f32>)> {
        let mut rng = Rng::new(seed);
        let summary = 2 * WIDTH + 2;
        let shapes = [
            ("w0", vec![4, WIDTH]),
            ("b0", vec![WIDTH]),
            ("w1", vec![3 * WIDTH, WIDTH]),
            ("b1", vec![WIDTH]),
            ("w2", vec![3 * WIDTH, WIDTH]),
            ("b2", vec![WIDTH]),
            ("policy_w", vec![WIDTH, HEADS]),
            ("policy_b", vec![CLASSES]),
            ("policy_global_w", vec![summary, CLASSES]),
            ("value_hidden_w", vec![summary, VALUE_HIDDEN]),
            ("value_hidden_b", vec![VALUE_HIDDEN]),
            ("value_w", vec![VALUE_HIDDEN, 2]),
            ("value_b", vec![2]),
        ];
        shapes
            .into_iter()
            .map(|(name, shape)| {
                let values = (0..shape.iter().product::<usize>())
                    .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                    .collect();
                (name.to_string(), (shape, values))
            })
            .collect()
    }

    fn as_arrays(params: &HashMap<String, (Vec<usize>, Vec<f32>)>) -> HashMap<String, Array> {
        params
            .iter()
            .map(|(name, (shape, values))| {
                (
                    name.clone(),
                    Array {
                        shape: shape.clone(),
                        values: values.clone(),
                    },
                )
            })
            .collect()
    }

    /// `PolicyValueNetwork._forward_cells` of one input, written plainly.
    fn naive_cells_forward(params: &HashMap<String, (Vec<usize>, Vec<f32>)>, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let w = |name: &str| &params[name].1;
        // `relu(bias + u @ weights)` of a `u.len() x bias.len()` matrix.
        let layer = |u: &[f32], weights: &[f32], bias: &[f32], relu: bool| -> Vec<f32> {
            (0..bias.len())
                .map(|j| {
                    let z = bias[j]
                        + u.iter()
                            .enumerate()
                            .map(|(i, &v)| v * weights[i * bias.len() + j])
                            .sum::<f32>();
                    if relu {
                        z.max(0.0)
                    } else {
                        z
                    }
                })
                .collect()
        };
        let squashed: Vec<f32> = x[2 * PLANE..].iter().map(|v| v / (1.0 + v.abs())).collect();
        let mut h: Vec<Vec<f32>> = (0..CELLS)
            .map(|c| {
                let at = POSITIONS[c] as usize;
                let u = [&[x[at], x[PLANE + at]][..], &squashed].concat();
                layer(&u, w("w0"), w("b0"), true)
            })
            .collect();
        for i in 1..3 {
            let next = (0..CELLS)
                .map(|c| {
                    let u: Vec<f32> = GATHER[c]
                        .iter()
                        .flat_map(|&g| {
                            if (g as usize) < CELLS {
                                h[g as usize].clone()
                            } else {
                                vec![0.0; WIDTH]
                            }
                        })
                        .collect();
                    let y = layer(&u, w(&format!("w{i}")), w(&format!("b{i}")), true);
                    h[c].iter().zip(y).map(|(a, b)| a + b).collect()
                })
                .collect();
            h = next;
        }
        let mean: Vec<f32> = (0..WIDTH)
            .map(|j| h.iter().map(|r| r[j]).sum::<f32>() / CELLS as f32)
            .collect();
        let max: Vec<f32> = (0..WIDTH)
            .map(|j| h.iter().map(|r| r[j]).fold(f32::MIN, f32::max))
            .collect();
        let summary = [mean, max, squashed].concat();
        let global = layer(&summary, w("policy_global_w"), &[0.0; CLASSES], false);
        let head = |cell: i64, which: i64| -> f32 {
            if cell as usize == CELLS {
                0.0
            } else {
                layer(&h[cell as usize], w("policy_w"), &[0.0; HEADS], false)[which as usize]
            }
        };
        let logits = (0..5)
            .map(|a| {
                let class = ACTION_CLASSES[a] as usize;
                head(ACTION_CELLS[a][0], ACTION_HEADS[a][0])
                    + head(ACTION_CELLS[a][1], ACTION_HEADS[a][1])
                    + w("policy_b")[class]
                    + global[class]
            })
            .collect();
        let hidden = layer(&summary, w("value_hidden_w"), w("value_hidden_b"), true);
        let mut values = layer(&hidden, w("value_w"), w("value_b"), false);
        softmax(&mut values);
        (logits, values)
    }

    #[test]
    fn the_cells_network_is_its_plain_definition() {
        let params = tiny_cells_arrays(11);
        let net = Network::with_geometry(
            &cells_meta(&[WIDTH; 3], VALUE_HIDDEN),
            as_arrays(&params),
            Some(tiny_geometry()),
        )
        .unwrap();
        let mut rng = Rng::new(12);
        let xs: Vec<f32> = (0..3 * 14).map(|_| rng.below(7) as f32 - 3.0).collect();
        let (logits, values) = net.forward(&xs, 3);
        let legal = vec![vec![2u32, 0, 4], vec![1, 3], vec![0, 1, 2, 3, 4]];
        let mut priors = vec![Vec::new(); 3];
        let mut evaluated = vec![0.0; 6];
        let mut scratch = Scratch::default();
        net.evaluate(&xs, &legal, &mut priors, &mut evaluated, &mut scratch);
        for k in 0..3 {
            let (expected_logits, expected_values) = naive_cells_forward(&params, &xs[k * 14..(k + 1) * 14]);
            for (a, b) in logits[k * 5..(k + 1) * 5].iter().zip(&expected_logits) {
                assert!((a - b).abs() < 1e-4, "{a} {b}");
            }
            for (a, b) in values[k * 2..(k + 1) * 2].iter().zip(&expected_values) {
                assert!((a - b).abs() < 1e-5, "{a} {b}");
            }
            let mut softmaxed: Vec<f32> = legal[k].iter().map(|&a| expected_logits[a as usize]).collect();
            softmax(&mut softmaxed);
            for (a, b) in priors[k].iter().zip(softmaxed) {
                assert!((a - b).abs() < 1e-5, "{a} {b}");
            }
            assert_eq!(&evaluated[k * 2..(k + 1) * 2], &values[k * 2..(k + 1) * 2]);
        }
        // The no-cell action reads nothing but its class.
        let (one, _) = net.forward(&xs[..14], 1);
        assert_eq!(one, logits[..5]);
    }

    #[test]
    fn a_bad_cell_geometry_or_cells_array_is_refused_with_the_reason() {
        let params = tiny_cells_arrays(1);
        let json = cells_meta(&[WIDTH; 3], VALUE_HIDDEN);
        let build = |json: &str, change: &dyn Fn(&mut Geometry, &mut HashMap<String, Array>)| {
            let (mut geometry, mut arrays) = (tiny_geometry(), as_arrays(&params));
            change(&mut geometry, &mut arrays);
            Network::with_geometry(json, arrays, Some(geometry)).map(|_| ())
        };
        let refused = |json: &str, change: &dyn Fn(&mut Geometry, &mut HashMap<String, Array>), reason: &str| {
            let error = build(json, change).unwrap_err();
            assert!(error.contains(reason), "{error:?} does not say {reason:?}");
        };
        assert!(build(&json, &|_, _| {}).is_ok());
        refused(
            &json,
            &|g, _| g.arrays.get_mut("gather").unwrap().values[4] = 5,
            "gather holds 5, not an index from 0 to 4",
        );
        refused(
            &json,
            &|g, _| g.arrays.get_mut("action_heads").unwrap().values[3] = -1,
            "action_heads holds -1",
        );
        refused(
            &json,
            &|g, _| g.arrays.get_mut("positions").unwrap().values[0] = 6,
            "positions holds 6, not an index from 0 to 5",
        );
        refused(
            &json,
            &|g, _| g.arrays.get_mut("action_cells").unwrap().shape = vec![2, 5],
            "action_cells has shape [2, 5], [5, 2] expected",
        );
        refused(
            &json,
            &|g, _| g.arrays.get_mut("action_classes").unwrap().shape = vec![6],
            "action_classes has shape [6] (5 values)",
        );
        refused(
            &json,
            &|g, _| {
                g.arrays.remove("gather");
            },
            "no array \"gather\"",
        );
        refused(&json, &|g, _| g.plane_size = 7, "are not the network's 14 inputs");
        refused(&json, &|g, _| g.num_heads = 2, "action_heads holds 2");
        refused(
            &json,
            &|_, a| a.get_mut("w1").unwrap().shape = vec![WIDTH, WIDTH],
            "w1 has shape [4, 4], [12, 4] expected",
        );
        refused(
            &json,
            &|g, _| {
                g.arrays.insert("extra".into(), index(vec![1], vec![0]));
            },
            "unknown array \"extra\"",
        );
        refused(&cells_meta(&[4, 4, 8], VALUE_HIDDEN), &|_, _| {}, "all one width");
        refused(&cells_meta(&[WIDTH; 3], 0), &|_, _| {}, "needs \"value_hidden\"");
        let error = Network::new(&json, as_arrays(&params)).unwrap_err();
        assert!(error.contains("needs its game's cell geometry"), "{error}");
        let dense = meta_json("tiny", 14, &[4], 5, 2);
        let error = Network::with_geometry(&dense, HashMap::new(), Some(tiny_geometry())).unwrap_err();
        assert!(error.contains("takes no cell geometry"), "{error}");
        let error = Network::new(
            &dense.replace("\"made_by\"", "\"architecture\": \"conv\", \"made_by\""),
            HashMap::new(),
        )
        .unwrap_err();
        assert!(error.contains("\"architecture\" is \"conv\""), "{error}");
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
        let dense = dense_body(net);
        let first = &dense.trunk[0];
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
        for layer in &dense.trunk[1..] {
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
        let (width, a) = (dense.width(), net.num_actions());
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

    fn dense_body(net: &Network) -> &DenseBody {
        match &net.body {
            Body::Dense(dense) => dense,
            Body::Cells(_) => panic!("a dense network expected"),
        }
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
            let dense = dense_body(&net);
            let (width, a) = (dense.width(), net.num_actions());
            let mut policy_w = vec![0.0f32; width * a];
            for j in 0..a {
                for i in 0..width {
                    policy_w[i * a + j] = dense.policy_rows[j * width + i];
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

    /// A random cells network of Terra Nova 2p's sizes (168 cells of 6 neighbours, 24
    /// planes of 225, a vector of 23, 14 heads, 87 classes, 14,449 actions) and
    /// `hidden` layers.
    fn terranova_cells(hidden: &[usize], value_hidden: usize) -> Network {
        let (cells, reach, planes, plane, vector, heads, classes, actions) = (168, 7, 24, 225, 23, 14, 87, 14449);
        let mut rng = Rng::new(1);
        let mut index = |shape: Vec<usize>, below: u32| {
            let values = (0..shape.iter().product::<usize>())
                .map(|_| rng.below(below) as i64)
                .collect();
            IndexArray { shape, values }
        };
        let geometry = Geometry {
            num_planes: planes,
            plane_size: plane,
            vector_size: vector,
            num_heads: heads,
            num_classes: classes,
            arrays: HashMap::from([
                ("positions".to_string(), index(vec![cells], plane as u32)),
                ("gather".to_string(), index(vec![cells, reach], cells as u32 + 1)),
                ("action_cells".to_string(), index(vec![actions, 2], cells as u32 + 1)),
                ("action_heads".to_string(), index(vec![actions, 2], heads as u32)),
                ("action_classes".to_string(), index(vec![actions], classes as u32)),
            ]),
        };
        let width = hidden[0];
        let summary = 2 * width + vector;
        let mut shapes = vec![
            ("w0".to_string(), vec![planes + vector, width]),
            ("b0".to_string(), vec![width]),
        ];
        for i in 1..hidden.len() {
            shapes.push((format!("w{i}"), vec![reach * width, width]));
            shapes.push((format!("b{i}"), vec![width]));
        }
        for (name, shape) in [
            ("policy_w", vec![width, heads]),
            ("policy_b", vec![classes]),
            ("policy_global_w", vec![summary, classes]),
            ("value_hidden_w", vec![summary, value_hidden]),
            ("value_hidden_b", vec![value_hidden]),
            ("value_w", vec![value_hidden, 2]),
            ("value_b", vec![2]),
        ] {
            shapes.push((name.to_string(), shape));
        }
        let mut rng = Rng::new(2);
        let arrays = shapes
            .into_iter()
            .map(|(name, shape)| {
                let values = (0..shape.iter().product::<usize>())
                    .map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2)
                    .collect();
                (name, Array { shape, values })
            })
            .collect();
        let json = super::tests::meta_json("terranova", planes * plane + vector, hidden, actions, 2).replace(
            "\"made_by\"",
            &format!("\"architecture\": \"cells\", \"value_hidden\": {value_hidden}, \"made_by\""),
        );
        Network::with_geometry(&json, arrays, Some(geometry)).unwrap()
    }

    /// The cells network at Terra Nova 2p's sizes:
    /// `cargo test --release --lib -- --ignored --nocapture cells_network_latency`.
    #[test]
    #[ignore]
    fn cells_network_latency() {
        for hidden in [vec![32], vec![32; 5], vec![64; 5]] {
            let net = terranova_cells(&hidden, 64);
            let (inputs, actions) = (net.input_size(), net.num_actions());
            let mut rng = Rng::new(3);
            for n in [1usize, 8, 64] {
                let xs: Vec<f32> = (0..n * inputs)
                    .map(|_| if rng.below(inputs as u32) < 825 { 1.0 } else { 0.0 })
                    .collect();
                let legal: Vec<Vec<u32>> = (0..n)
                    .map(|_| (0..190).map(|_| rng.below(actions as u32)).collect())
                    .collect();
                let mut priors = vec![Vec::new(); n];
                let mut values = vec![0.0f32; n * 2];
                let mut scratch = Scratch::default();
                let ours = per_position(n, || {
                    net.evaluate(&xs, &legal, &mut priors, &mut values, &mut scratch);
                });
                println!("terranova 2p cells {hidden:?} batch {n:>2}: evaluate {ours:>7.1} us/position");
            }
        }
    }
}
