//! Per-user dedup in Rust, the job the Spark example runs: one filter per user, sized for that
//! user's own history (`sizing::per_key_shape`, the rule the JVM, the CLI and Python share),
//! stored as bytes (FORMAT.md), read back, and asked which candidates the user has not seen.
//!
//! ```text
//! cargo run --release --example per_user_dedup
//! ```

use sparkbloom::sizing::per_key_shape;
use sparkbloom::{BloomFilter, Strategy, format};
use std::collections::HashMap;

/// The rate each user's filter is sized for.
const FPP: f64 = 0.001;

fn main() -> Result<(), sparkbloom::Error> {
    // What each user has seen: (user, item) rows, as a history table holds them.
    let history: Vec<(u32, u64)> = (0..1_000u32)
        .flat_map(|user| {
            (0..u64::from(user % 200 + 1)).map(move |i| (user, u64::from(user) << 32 | i))
        })
        .collect();
    let mut by_user: HashMap<u32, Vec<u64>> = HashMap::new();
    for &(user, item) in &history {
        by_user.entry(user).or_default().push(item);
    }

    // Build and store: a filter per user, kept as bytes (a table column, a file, a Redis value).
    let mut stored: HashMap<u32, Vec<u8>> = HashMap::new();
    for (&user, items) in &by_user {
        let filter = BloomFilter::with_shape(
            per_key_shape(items.len() as u64, FPP)?,
            Strategy::Murmur128Mitz64,
        )?;
        filter.put_all(items);
        stored.insert(user, format::encode(&filter));
    }

    // Serve: read a user's filter back and keep the candidates that user has not seen, in order.
    let (mut kept, mut false_positives, mut offered) = (0usize, 0usize, 0usize);
    for (&user, bytes) in &stored {
        let filter = format::decode(bytes)?;
        let seen = &by_user[&user];
        let unseen = (0..100u64).map(|i| u64::from(user) << 32 | (1 << 31) | i);
        let candidates: Vec<u64> = seen.iter().copied().take(50).chain(unseen).collect();
        let fresh = filter.retain_absent(&candidates);
        assert!(
            fresh.iter().all(|item| !seen.contains(item)),
            "a seen item was kept"
        );
        offered += 100;
        false_positives += 100 - fresh.len();
        kept += fresh.len();
    }
    let bytes: usize = stored.values().map(Vec::len).sum();
    println!(
        "{} users, {} history items: {bytes} bytes of filters ({:.0} per user); {kept} unseen \
         candidates kept, {false_positives} of {offered} dropped as false positives (p = {FPP})",
        stored.len(),
        history.len(),
        bytes as f64 / stored.len() as f64
    );
    Ok(())
}
