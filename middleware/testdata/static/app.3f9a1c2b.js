console.log("hashed");
