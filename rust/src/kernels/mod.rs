//! The batch kernels, and the one place the crate asks the CPU what it has.
//!
//! A batch of u64 keys (`put_all`, `might_contain_all`, `retain_absent`) runs one of three
//! kernels, all bit-exact with the single-key walk of `strategy::Indexer`:
//!
//! * [`Kernel::Scalar`] (`scalar.rs`): the reference, the specification in code: hash a key,
//!   walk its k indexes, test or set each, one key after another.
//! * [`Kernel::Portable`] (`portable.rs`): the fast kernel in plain Rust, sixteen keys in
//!   flight, every key's first indexes tested without a branch before the survivors walk the
//!   rest side by side; the remainders by multiplication (no division per probe).
//! * [`Kernel::Avx2`] (`avx2.rs`): four keys per AVX2 vector, several vectors in lockstep,
//!   hashed and started in lanes (the remainders through doubles), four loads per probe, the
//!   survivors of every key's first probes walked on together; where the CPU has AVX2.
//! * [`Kernel::Avx512`] (`avx512.rs`, `avx512/`): eight keys per vector, gathers in lockstep or
//!   a prefetched walk on filters beyond cache; byte keys of one length hashed eight to a vector.
//!
//! BLOCKED filters' batches (`blocked.rs`) run in the kernel's instruction set ([`Isa`]).
//!
//! The kernel is chosen once per process ([`selected`]): the best the CPU runs, or the one
//! `SPARKBLOOM_KERNEL` names (`scalar`, `portable`, `avx2`, `avx512`); `SPARKBLOOM_DISABLE_AVX512`
//! (any value) picks the best kernel without AVX-512. Each filter turns it into a [`Plan`] for
//! its shape when it is made; batches follow the plan and never test the CPU again. The
//! format's fast paths and the JNI's string batches are here too (`popcount.rs`, `set_bits.rs`,
//! `narrow.rs`, and [`with_bmi`] and [`with_avx2`] for portable loops): this module is the only
//! code that tests or enables CPU features.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
// Elsewhere stand-ins that are never chosen.
#[cfg(not(target_arch = "x86_64"))]
mod absent;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) use absent::{avx2, avx512};
// BLOCKED batches, in each build.
pub(crate) mod blocked;
// The JNI's string batches: UTF-16 chars narrowed to bytes.
#[cfg(feature = "jni")]
pub(crate) mod narrow;
mod plan;
// The dense payload's copy, counted in the same pass.
pub(crate) mod popcount;
pub(crate) mod portable;
pub(crate) mod prefetched;
pub(crate) mod scalar;
// The gaps between the set bits of a dense payload, for the sparse encoder.
pub(crate) mod set_bits;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use plan::VECTOR_PREFETCH_MIN_BYTES;
pub(crate) use plan::{CountingPlan, Isa, PREFETCH_MIN_BYTES, Plan, Put, Query};

use crate::error::{Error, Result};
use std::sync::OnceLock;

/// The environment variable that forces a kernel by its [`name`](Kernel::name).
pub(crate) const KERNEL_ENV: &str = "SPARKBLOOM_KERNEL";
/// The environment variable (any value) that rules AVX-512 out: to compare kernels when
/// chasing a problem, and for the test suite's run without it.
pub(crate) const DISABLE_AVX512_ENV: &str = "SPARKBLOOM_DISABLE_AVX512";

/// One implementation of the batch operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kernel {
    /// The reference: one key at a time.
    Scalar,
    /// The fast kernel, baseline instructions only.
    Portable,
    /// The fast kernel compiled for AVX2 and BMI2.
    Avx2,
    /// Eight keys per AVX-512 vector.
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub(crate) const ALL: [Kernel; 4] = [
        Kernel::Scalar,
        Kernel::Portable,
        Kernel::Avx2,
        Kernel::Avx512,
    ];

    /// The kernel's name in [`KERNEL_ENV`].
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// What the CPU needs for this kernel.
    fn needs(self) -> &'static str {
        match self {
            Kernel::Scalar | Kernel::Portable => "nothing",
            Kernel::Avx2 => "AVX2, BMI1, BMI2 and POPCNT",
            Kernel::Avx512 => "AVX-512 F and DQ, and POPCNT",
        }
    }

    /// Whether only x86-64 builds carry the kernel (it is AVX code).
    fn x86_64_only(self) -> bool {
        matches!(self, Kernel::Avx2 | Kernel::Avx512)
    }

    /// Whether this CPU runs the kernel.
    pub(crate) fn supported(self) -> bool {
        match self {
            Kernel::Scalar | Kernel::Portable => true,
            Kernel::Avx2 => cpu_facts().avx2_kernel,
            Kernel::Avx512 => cpu_facts().avx512_kernel,
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernels this CPU runs, slowest first (the tests run each).
#[cfg(test)]
pub(crate) fn available() -> impl Iterator<Item = Kernel> {
    Kernel::ALL.into_iter().filter(|k| k.supported())
}

/// The process's kernel, chosen on first use from the CPU and the environment; an error names
/// the variable and why its kernel cannot run (an unknown name, a CPU without it).
pub(crate) fn selected() -> Result<Kernel> {
    static SELECTED: OnceLock<std::result::Result<Kernel, String>> = OnceLock::new();
    SELECTED
        .get_or_init(|| {
            choose(
                std::env::var_os(KERNEL_ENV).map(|v| v.to_string_lossy().into_owned()),
                std::env::var_os(DISABLE_AVX512_ENV).is_some(),
                std::env::consts::ARCH,
                Kernel::supported,
            )
        })
        .clone()
        .map_err(|reason| Error::invalid(KERNEL_ENV, reason))
}

/// [`selected`], or where the environment names a kernel that cannot run, the best one the
/// CPU runs (for callers that cannot fail; filter construction reports the error).
pub(crate) fn selected_or_best() -> Kernel {
    selected().unwrap_or_else(|_| best(Kernel::supported, true))
}

/// The fastest kernel `supported` allows, AVX-512 only if `allow_avx512`.
fn best(supported: impl Fn(Kernel) -> bool, allow_avx512: bool) -> Kernel {
    Kernel::ALL
        .into_iter()
        .rev()
        .filter(|&k| allow_avx512 || k != Kernel::Avx512)
        .find(|&k| supported(k))
        .unwrap_or(Kernel::Portable)
}

/// The kernel for the environment's `forced` name (if any) and `disable_avx512`, on a CPU of
/// architecture `arch` (`std::env::consts::ARCH`) that runs the kernels `supported` allows.
fn choose(
    forced: Option<String>,
    disable_avx512: bool,
    arch: &str,
    supported: impl Fn(Kernel) -> bool,
) -> std::result::Result<Kernel, String> {
    let Some(name) = forced else {
        return Ok(best(supported, !disable_avx512));
    };
    let wanted = name.trim().to_ascii_lowercase();
    let Some(kernel) = Kernel::ALL.into_iter().find(|k| k.name() == wanted) else {
        return Err(format!(
            "{name:?} is not a kernel: expected scalar, portable, avx2 or avx512"
        ));
    };
    if kernel == Kernel::Avx512 && disable_avx512 {
        return Err(format!("avx512 contradicts {DISABLE_AVX512_ENV}"));
    }
    if !supported(kernel) {
        let runs: Vec<&str> = Kernel::ALL
            .into_iter()
            .filter(|&k| supported(k))
            .map(Kernel::name)
            .collect();
        let runs = runs.join(", ");
        return Err(if kernel.x86_64_only() && arch != "x86_64" {
            format!("{name} is an x86-64 kernel; this CPU is {arch}, whose kernels are {runs}")
        } else {
            format!(
                "{name}: this CPU lacks {} (the kernels it runs: {runs})",
                kernel.needs()
            )
        });
    }
    Ok(kernel)
}

/// Portable code that runs faster with instructions a baseline x86-64 build lacks (the
/// format's scalar loops): [`with_bmi`] and [`with_avx2`] run it compiled for them where the CPU
/// has them. `run` must be `#[inline(always)]`, so that it compiles inside their builds.
pub(crate) trait Portable {
    type Output;
    fn run(self) -> Self::Output;
}

/// Defines `$name(code)`: runs [`Portable`] `code` compiled for `$features` where the CPU has
/// them (its fact `$has`), else as built.
macro_rules! portable_build {
    ($(#[$doc:meta])* $name:ident, $features:literal, $has:ident) => {
        $(#[$doc])*
        pub(crate) fn $name<P: Portable>(code: P) -> P::Output {
            #[cfg(target_arch = "x86_64")]
            if cpu().$has {
                #[target_feature(enable = $features)]
                fn build<P: Portable>(code: P) -> P::Output {
                    code.run()
                }
                // SAFETY: the CPU has the features, checked just above.
                return unsafe { build(code) };
            }
            code.run()
        }
    };
}
portable_build!(
    /// Runs `code` compiled for BMI1 and BMI2 (TZCNT, and shifts by any register) where the
    /// CPU has them.
    with_bmi,
    "bmi1,bmi2",
    bmi
);
portable_build!(
    /// Runs `code` compiled for AVX2 (vectors of four words) where the CPU has it.
    with_avx2,
    "avx2",
    avx2
);

/// What the CPU has, for the fast paths outside the batch kernels (the format's encoder and
/// decoder, the JNI's string batches). The AVX-512 facts hold only when the process's kernel is
/// [`Kernel::Avx512`], so that disabling or forcing a kernel rules AVX-512 out everywhere.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the fast paths are x86-64's
struct Cpu {
    /// AVX2.
    avx2: bool,
    /// BMI1 and BMI2 (TZCNT, BLSR, SHRX, SHLX, PEXT).
    bmi: bool,
    /// POPCNT.
    popcnt: bool,
    /// AVX-512 F, DQ and BW (byte and word lanes: the narrowing of UTF-16), and the AVX-512
    /// kernel chosen.
    #[cfg_attr(not(feature = "jni"), allow(dead_code))] // read only for the JNI bridge
    avx512_bw: bool,
    /// AVX-512 F, DQ and VPOPCNTDQ, and the AVX-512 kernel chosen.
    avx512_popcnt: bool,
    /// [`avx512_popcnt`](Self::avx512_popcnt), BW, VBMI2, BITALG and BMI2: the encoder's
    /// set-bit finder.
    avx512_bits: bool,
}

/// The CPU's facts, decided once per process.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by x86-64's fast paths
fn cpu() -> Cpu {
    static CPU: OnceLock<Cpu> = OnceLock::new();
    *CPU.get_or_init(|| {
        let facts = cpu_facts();
        let avx512 = facts.avx512_kernel && selected_or_best() == Kernel::Avx512;
        Cpu {
            avx2: facts.avx2,
            bmi: facts.bmi,
            popcnt: facts.popcnt,
            avx512_bw: avx512 && facts.avx512_bw,
            avx512_popcnt: avx512 && facts.avx512_popcnt,
            avx512_bits: avx512 && facts.avx512_bw && facts.avx512_popcnt && facts.avx512_bits,
        }
    })
}

/// The instruction sets as detected, before any environment variable.
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // all false elsewhere
struct Facts {
    avx2: bool,
    bmi: bool,
    popcnt: bool,
    avx2_kernel: bool,
    avx512_kernel: bool,
    avx512_bw: bool,
    avx512_popcnt: bool,
    /// VBMI2, BITALG and BMI2 (with BW and VPOPCNTDQ, the encoder's set-bit finder).
    avx512_bits: bool,
}

fn cpu_facts() -> Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    *FACTS.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Facts {
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("avx2");
    let bmi = has!("bmi1") && has!("bmi2");
    let popcnt = has!("popcnt");
    Facts {
        avx2,
        bmi,
        popcnt,
        avx2_kernel: avx2 && bmi && popcnt,
        avx512_kernel: has!("avx512f") && has!("avx512dq") && popcnt,
        avx512_bw: has!("avx512bw"),
        avx512_popcnt: has!("avx512vpopcntdq"),
        avx512_bits: has!("avx512vbmi2") && has!("avx512bitalg") && bmi,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Facts {
    Facts::default()
}
