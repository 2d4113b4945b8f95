//! A small driver around tsionyx/nonogrid's library, for bench/colour_vs_nonogrid.py.
//!
//! Why: nonogrid's own input formats need optional features (toml/serde, sxd-xpath) whose
//! crates are not available offline; this reads a plain clue format instead and runs the same
//! solver nonogrid's CLI runs by default (line propagation, probing, then backtracking), asking
//! for up to two solutions so that one answer found means uniqueness proven.
//!
//! Input (stdin): `H W`, then H row lines and W column lines; a line is blocks `SIZE,COLOUR`
//! separated by spaces (COLOUR 1..=30, 0 is the background), or `0` for an empty line.
//! Output: `solutions N`, each solution as H lines of space-separated colour indexes followed
//! by a blank line, then `cpu SECONDS` (this process's CPU time spent solving, clue parsing
//! included, start-up excluded). A contradiction is `solutions 0`.
use std::io::{self, Read};

use nonogrid::{Block, Board, Color, ColoredBlock, Description, FullProbe, LineSolver, RcBoard};

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes into the timespec we own.
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn parse_line(line: &str) -> Description<ColoredBlock> {
    let blocks = line
        .split_whitespace()
        .filter(|tok| *tok != "0")
        .map(|tok| {
            let mut parts = tok.split(',');
            let size: usize = parts.next().unwrap().parse().expect("block size");
            let colour: u32 = parts.next().expect("block colour").parse().expect("colour");
            assert!((1..=30).contains(&colour), "colour out of range");
            <ColoredBlock as Block>::from_size_and_color(size, Some(1 << colour))
        })
        .collect();
    Description::new(blocks)
}

fn colour_index(id: u32) -> u32 {
    // a solved cell holds exactly one colour bit; background is bit 0
    id.trailing_zeros()
}

fn print_grid(cells: &[<ColoredBlock as Block>::Color], width: usize) {
    for row in cells.chunks(width) {
        let line: Vec<String> = row
            .iter()
            .map(|c| colour_index(c.as_color_id().unwrap()).to_string())
            .collect();
        println!("{}", line.join(" "));
    }
    println!();
}

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).expect("read stdin");
    let start = cpu_seconds();
    let mut lines = input.lines();
    let dims: Vec<usize> = lines
        .next()
        .expect("dimensions")
        .split_whitespace()
        .map(|t| t.parse().expect("dimension"))
        .collect();
    let (height, width) = (dims[0], dims[1]);
    let rows: Vec<_> = (0..height).map(|_| parse_line(lines.next().expect("row"))).collect();
    let cols: Vec<_> = (0..width).map(|_| parse_line(lines.next().expect("column"))).collect();

    let board = RcBoard::new(Board::with_descriptions_and_palette(rows, cols, None));
    let result = nonogrid::solve::<ColoredBlock, LineSolver<ColoredBlock>, FullProbe<ColoredBlock>>(
        RcBoard::clone(&board),
        Some(2),
        None,
        None,
    );
    let mut solutions = Vec::new();
    match result {
        Err(_) => {}
        Ok(backtracking) => {
            if let Some(bt) = backtracking {
                solutions = bt.solutions;
            }
            let current = board.read().make_snapshot();
            if board.read().is_solved_full() && !solutions.iter().any(|s| *s == current) {
                solutions.push(current);
            }
        }
    }
    let spent = cpu_seconds() - start;
    println!("solutions {}", solutions.len());
    for solution in &solutions {
        print_grid(solution, width);
    }
    println!("cpu {:.6}", spent);
}
