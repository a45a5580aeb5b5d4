//! The .NET connection-string format (`Host=..;Port=..;Database=..;Username=..;Password=..`),
//! which operators share with the .NET services: parsed into sqlx's connect options.
//!
//! Errors name keys, never values: a value may be a password.

use sqlx::postgres::{PgConnectOptions, PgSslMode};

/// Splits `Key=Value;Key='Value'` pairs the way ADO.NET connection strings do: values may be
/// quoted with `'` or `"` (a doubled quote inside is a literal one), so a password may contain
/// `;`. Errors name keys, never values: a value may be a password.
fn split_key_values(value: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ';') {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        let mut saw_equals = false;
        for c in chars.by_ref() {
            match c {
                '=' => {
                    saw_equals = true;
                    break;
                }
                ';' => break,
                c => key.push(c),
            }
        }
        let key = key.trim().to_owned();
        if !saw_equals || key.is_empty() {
            return Err("expected Key=Value pairs separated by ';'".into());
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut val = String::new();
        match chars.peek().copied() {
            Some(quote @ ('\'' | '"')) => {
                chars.next();
                loop {
                    match chars.next() {
                        Some(c) if c == quote => {
                            if chars.peek() == Some(&quote) {
                                chars.next();
                                val.push(quote);
                            } else {
                                break;
                            }
                        }
                        Some(c) => val.push(c),
                        None => return Err(format!("unterminated quote in the value of {key}")),
                    }
                }
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                if chars.next().is_some_and(|c| c != ';') {
                    return Err(format!("unexpected text after the quoted value of {key}"));
                }
            }
            _ => {
                val = chars.by_ref().take_while(|c| *c != ';').collect();
                val = val.trim().to_owned();
            }
        }
        pairs.push((key, val));
    }
}

pub(super) fn parse_key_value_connection_string(value: &str) -> Result<PgConnectOptions, String> {
    let mut options = PgConnectOptions::new_without_pgpass();
    let mut saw_host = false;
    for (key, val) in split_key_values(value)? {
        let normalised = key.to_ascii_lowercase().replace([' ', '_'], "");
        options = match normalised.as_str() {
            "host" | "server" => {
                saw_host = true;
                options.host(&val)
            }
            "port" => options.port(
                val.parse()
                    .map_err(|_| format!("{key} must be a port number"))?,
            ),
            "database" | "initialcatalog" => options.database(&val),
            "username" | "user" | "userid" | "uid" => options.username(&val),
            "password" | "pwd" => options.password(&val),
            "sslmode" => options.ssl_mode(
                match val.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
                    "verifyca" => "verify-ca".to_owned(),
                    "verifyfull" => "verify-full".to_owned(),
                    other => other.to_owned(),
                }
                .parse::<PgSslMode>()
                .map_err(|_| {
                    format!("{key} must be Disable, Allow, Prefer, Require, VerifyCA or VerifyFull")
                })?,
            ),
            "rootcertificate" | "sslrootcert" => options.ssl_root_cert(val.as_str()),
            // Knobs of other drivers that mean nothing here (our pool and TLS verification are
            // configured by SSL Mode and our own settings): accepted so a shared connection
            // string works unchanged.
            "pooling"
            | "minimumpoolsize"
            | "minpoolsize"
            | "maximumpoolsize"
            | "maxpoolsize"
            | "timeout"
            | "commandtimeout"
            | "connectionidlelifetime"
            | "keepalive"
            | "includeerrordetail"
            | "trustservercertificate"
            | "applicationname"
            | "connectionlifetime"
            | "multiplexing" => options,
            _ if key.len() <= 40 && key.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') => {
                return Err(format!("unknown key {key:?}"));
            }
            _ => return Err("unknown key".into()),
        };
    }
    if !saw_host {
        return Err("missing Host".into());
    }
    Ok(options)
}
