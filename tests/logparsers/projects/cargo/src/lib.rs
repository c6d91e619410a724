//! Code under test of the cargo test sample.

/// Adds two numbers.
///
/// ```
/// assert_eq!(logparsers_sample::add(2, 2), 4);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Divides, panicking on zero.
///
/// ```
/// assert_eq!(logparsers_sample::div(6, 3), 3);
/// ```
///
/// ```should_panic
/// logparsers_sample::div(1, 0);
/// ```
pub fn div(a: i32, b: i32) -> i32 {
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn fails_with_multiline_message() {
        assert_eq!("line one\nline two", "line one\nline 2", "strings differ");
    }

    #[test]
    #[ignore = "slow"]
    fn ignored_test() {}

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn panics_as_expected() {
        div(1, 0);
    }

    #[test]
    fn prints_a_status_looking_line() {
        println!("test forged::line ... ok");
    }

    mod nested {
        #[test]
        fn deep_test_passes() {
            assert!(super::super::add(0, 0) == 0);
        }
    }
}
