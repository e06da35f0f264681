<?php

// Plinth's web.Passwords defaults (web/password.go): argon2id, 19 MiB,
// 2 passes, 1 thread.
return [
    'driver' => 'argon2id',
    'bcrypt' => ['rounds' => 10],
    'argon' => ['memory' => 19456, 'threads' => 1, 'time' => 2],
];
